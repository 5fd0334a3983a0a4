package dev.engram.agents;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What to import and how: an agent file (Engram's own, or a Letta Agent File) and the options of its import, for
 * {@link AgentRuntime#importAgentFile}, {@link AgentRuntime#importAgent} and {@link AgentRuntime#importLettaAgentFile}.
 * Immutable: each option returns a new value.
 *
 * <pre>{@code
 * runtime.importAgent(AgentImport.of(Path.of("helper.af")).user("ana").model("openai:gpt-4o-mini"));
 * }</pre>
 */
public final class AgentImport {
    private final String json;
    private final String source;
    private final String user;
    private final Optional<String> agentId;
    private final Optional<String> model;
    private final Optional<String> name;
    private final boolean copySuffix;
    private final boolean stripMessages;
    private final Optional<Supplier<String>> newIds;

    private AgentImport(String json, String source, String user, Optional<String> agentId, Optional<String> model,
            Optional<String> name, boolean copySuffix, boolean stripMessages, Optional<Supplier<String>> newIds) {
        this.json = json;
        this.source = source;
        this.user = user;
        this.agentId = agentId;
        this.model = model;
        this.name = name;
        this.copySuffix = copySuffix;
        this.stripMessages = stripMessages;
        this.newIds = newIds;
    }

    /**
     * The agent file at {@code file}, read now.
     *
     * @throws AgentException if the file cannot be read
     */
    public static AgentImport of(Path file) {
        Objects.requireNonNull(file, "file must not be null");
        return new AgentImport(AgentTransfer.read(file), file.toString(), AgentRuntime.DEFAULT_IMPORT_USER,
                Optional.empty(), Optional.empty(), Optional.empty(), false, false, Optional.empty());
    }

    /** An agent file's JSON; {@code source} names it in messages (a file name, "the upload"). */
    public static AgentImport json(String json, String source) {
        Objects.requireNonNull(json, "json must not be null");
        return new AgentImport(json, checkText(source, "source"), AgentRuntime.DEFAULT_IMPORT_USER, Optional.empty(),
                Optional.empty(), Optional.empty(), false, false, Optional.empty());
    }

    /** The user the agents are imported for, whatever user the file names; default {@link AgentRuntime#DEFAULT_IMPORT_USER}. */
    public AgentImport user(String userId) {
        return new AgentImport(json, source, checkText(userId, "user id"), agentId, model, name, copySuffix, stripMessages, newIds);
    }

    /** The id of the imported agent, for a file of one agent; default the file's (Engram) or a new one (Letta). */
    public AgentImport agentId(String id) {
        return new AgentImport(json, source, user, Optional.of(AgentDefinition.checkId(id, "agent id")), model, name, copySuffix,
                stripMessages, newIds);
    }

    /**
     * A model spec (any {@code ChatModel.of} takes) to use instead of the file's, for its sleep-time companions too.
     * A file whose model the runtime's {@link AgentRuntime#modelPolicy()} does not allow can only be imported this
     * way: a file never chooses where the runtime sends its requests and keys.
     */
    public AgentImport model(String spec) {
        return new AgentImport(json, source, user, agentId, Optional.of(checkText(spec, "model spec")), name, copySuffix,
                stripMessages, newIds);
    }

    /** The name of the imported agent (of each agent, for a Letta file of several), instead of the file's (Letta's {@code override_name}). */
    public AgentImport name(String agentName) {
        return new AgentImport(json, source, user, agentId, model, Optional.of(checkText(agentName, "agent name")), copySuffix,
                stripMessages, newIds);
    }

    /** Appends {@code _copy} to each imported agent's name (Letta's {@code append_copy_suffix}). */
    public AgentImport appendCopySuffix() {
        return new AgentImport(json, source, user, agentId, model, name, true, stripMessages, newIds);
    }

    /** Imports a Letta file's agents without their messages (Letta's {@code strip_messages}). */
    public AgentImport stripMessages() {
        return new AgentImport(json, source, user, agentId, model, name, copySuffix, true, newIds);
    }

    /**
     * Gives every agent of a Letta file a new id from {@code ids} (as Letta does, {@code agent-...}) instead of one
     * made from its name; an id that is taken is replaced by the next.
     */
    public AgentImport newIds(Supplier<String> ids) {
        return new AgentImport(json, source, user, agentId, model, name, copySuffix, stripMessages,
                Optional.of(Objects.requireNonNull(ids, "ids must not be null")));
    }

    /** Where new ids come from, if they do not come from the names. */
    public Optional<Supplier<String>> newIds() {
        return newIds;
    }

    /** The name asked instead of the file's, if any. */
    public Optional<String> name() {
        return name;
    }

    /** Whether {@code _copy} is appended to the names. */
    public boolean copySuffix() {
        return copySuffix;
    }

    /** Whether a Letta file's messages are left out. */
    public boolean strippingMessages() {
        return stripMessages;
    }

    /** The file's JSON. */
    public String json() {
        return json;
    }

    /** What names the file in messages. */
    public String source() {
        return source;
    }

    /** The user the agents are imported for. */
    public String user() {
        return user;
    }

    /** The id asked for the imported agent, if any. */
    public Optional<String> agentId() {
        return agentId;
    }

    /** The model asked instead of the file's, if any. */
    public Optional<String> model() {
        return model;
    }

    private static String checkText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be null or blank");
        }
        return value;
    }
}
