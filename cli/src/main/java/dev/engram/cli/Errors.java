package dev.engram.cli;

/** One sentence for an exception, as the CLI prints it. */
final class Errors {
    private Errors() {
    }

    static String sentence(Throwable t) {
        Throwable e = t;
        while ((e.getMessage() == null || e.getMessage().isBlank()) && e.getCause() != null) {
            e = e.getCause();
        }
        String message = e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
        String line = message.strip().replaceAll("\\s*\\n\\s*", " ");
        return line.endsWith(".") || line.endsWith("?") || line.endsWith("!") ? line : line + ".";
    }
}
