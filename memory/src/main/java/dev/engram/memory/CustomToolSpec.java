package dev.engram.memory;

import java.util.List;

/**
 * What a user says about a tool of their own written in Python or JavaScript (Letta's custom tools): its function's
 * name, its source, the JSON schema the model sees, and its settings. The store keeps the text fields as given (the
 * server derives and checks the schema); the requirements are recorded, never installed.
 *
 * @param name                    the function's name, unique among the user's tools
 * @param description             what it does, for the model
 * @param sourceType              the language of {@code sourceCode}: {@code python} or {@code javascript}
 * @param sourceCode              the source, defining the function {@code name}
 * @param jsonSchema              Letta's function schema ({@code name}, {@code description}, {@code parameters}) as a
 *                                JSON object
 * @param argsJsonSchema          Letta's separate schema of the arguments as a JSON object; empty when none was given
 * @param tags                    the user's tags
 * @param returnCharLimit         the most characters of its output the model sees, 1 to 1,000,000
 * @param pipRequirements         Letta's {@code pip_requirements} as a JSON array ({@code []} for none)
 * @param npmRequirements         Letta's {@code npm_requirements} as a JSON array ({@code []} for none)
 * @param defaultRequiresApproval whether every call of it asks the user first
 * @param metadata                Letta's {@code metadata_}, a JSON object ({@code {}} for none)
 */
public record CustomToolSpec(String name, String description, String sourceType, String sourceCode, String jsonSchema,
        String argsJsonSchema, List<String> tags, int returnCharLimit, String pipRequirements, String npmRequirements,
        boolean defaultRequiresApproval, String metadata) {
    /** Letta's default {@code return_char_limit}. */
    public static final int DEFAULT_RETURN_CHAR_LIMIT = 50_000;
    /** The largest {@code return_char_limit}. */
    public static final int MAX_RETURN_CHAR_LIMIT = 1_000_000;

    public CustomToolSpec {
        Checks.id(name, "tool name");
        Checks.notNull(description, "tool description");
        Checks.id(sourceType, "tool source type");
        Checks.unicode(sourceCode, "tool source code");
        json(jsonSchema, "tool JSON schema");
        Checks.notNull(argsJsonSchema, "tool args JSON schema");
        tags = List.copyOf(Checks.noNulls(tags, "tool tags"));
        if (returnCharLimit < 1 || returnCharLimit > MAX_RETURN_CHAR_LIMIT) {
            throw new IllegalArgumentException("a tool's return character limit must be 1 to " + MAX_RETURN_CHAR_LIMIT
                    + ", got " + returnCharLimit);
        }
        json(pipRequirements, "tool pip requirements");
        json(npmRequirements, "tool npm requirements");
        json(metadata, "tool metadata");
    }

    /** Text the store keeps as JSON: present and not blank (what it holds is the server's to check). */
    private static void json(String value, String what) {
        Checks.unicode(value, what);
        if (value.isBlank()) {
            throw new IllegalArgumentException(what + " must be JSON, got blank text");
        }
    }
}
