package dev.engram.tools;

import java.util.ArrayList;
import java.util.List;

/** The rows of comma- (or tab-) separated text, as RFC 4180 writes them: quoted fields may hold separators, quotes ("") and line breaks. */
final class CsvRows {
    private CsvRows() {
    }

    static List<List<String>> read(String text, char separator) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"' && field.isEmpty()) {
                quoted = true;
                any = true;
            } else if (c == separator) {
                row.add(field.toString().strip());
                field.setLength(0);
                any = true;
            } else if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                    i++;
                }
                if (any || !field.isEmpty()) {
                    row.add(field.toString().strip());
                    rows.add(row);
                }
                row = new ArrayList<>();
                field.setLength(0);
                any = false;
            } else {
                field.append(c);
                any = true;
            }
        }
        if (any || !field.isEmpty()) {
            row.add(field.toString().strip());
            rows.add(row);
        }
        return rows;
    }
}
