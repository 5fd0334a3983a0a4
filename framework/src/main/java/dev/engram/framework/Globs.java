package dev.engram.framework;

import java.util.regex.Pattern;

/** Turns the simple globs of policies and rules ({@code *} any run, {@code ?} one character) into patterns. */
final class Globs {
    private Globs() {
    }

    static Pattern compile(String glob) {
        if (glob == null || glob.isEmpty()) {
            throw new IllegalArgumentException("a glob must not be null or empty");
        }
        StringBuilder re = new StringBuilder(glob.length() + 8);
        StringBuilder literal = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '*' || c == '?') {
                if (!literal.isEmpty()) {
                    re.append(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                }
                re.append(c == '*' ? ".*" : ".");
            } else {
                literal.append(c);
            }
        }
        if (!literal.isEmpty()) {
            re.append(Pattern.quote(literal.toString()));
        }
        return Pattern.compile(re.toString(), Pattern.DOTALL);
    }
}
