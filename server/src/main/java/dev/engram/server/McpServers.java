package dev.engram.server;

import dev.engram.agents.AgentDefinition;
import dev.engram.agents.AgentRuntime;
import dev.engram.agents.UserTools;
import dev.engram.framework.DynamicTool;
import dev.engram.mcp.McpServer;
import dev.engram.mcp.McpServerException;
import dev.engram.mcp.McpServerOptions;
import dev.engram.mcp.McpServerSpec;
import dev.engram.mcp.McpTransport;
import dev.engram.memory.DuplicateException;
import dev.engram.memory.McpServerRecord;
import dev.engram.memory.MemoryStore;
import dev.engram.tools.PublicAddresses;
import io.helidon.http.Status;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP servers each user registered, live: one {@link McpServer} per stored server (built when first needed, rebuilt
 * when its settings change), whose tools, named {@code <server_name>_<tool>}, are that user's own tools
 * ({@link UserTools}): the user's agents may be given them, and they run through the agent's tool pipeline. The tools a
 * server listed last are kept with it, so they exist before it is connected again. Registering applies the operator's
 * {@link McpServerPolicy}; secrets are sealed as provider keys are.
 */
final class McpServers implements UserTools, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(McpServers.class);
    /** Environment variables a user key may not give a stdio server: each makes a program load or run other code. */
    private static final Set<String> UNSAFE_ENV = Set.of("PATH", "ENV", "BASH_ENV", "IFS", "SHELLOPTS", "PS4", "PROMPT_COMMAND");
    private static final List<String> UNSAFE_ENV_PREFIXES = List.of("LD_", "DYLD_", "NODE_", "NPM_CONFIG_", "PYTHON", "PIP_",
            "UV_", "JAVA_", "JDK_", "_JAVA", "PERL", "RUBY", "GEM_", "GIT_", "BUN_", "DENO_", "LUA_");

    private final MemoryStore store;
    private final ProviderSecrets secrets;
    private final McpServerPolicy policy;
    private final Map<String, Live> live = new ConcurrentHashMap<>();
    private volatile AgentRuntime runtime;

    /** A server as built from one version of its stored record. */
    private record Live(McpServerRecord record, McpServer server) {
    }

    /** What a refresh found: the tools that came and went. */
    record Refresh(List<String> added, List<String> removed, List<String> tools) {
    }

    McpServers(MemoryStore store, ProviderSecrets secrets, McpServerPolicy policy) {
        this.store = store;
        this.secrets = secrets;
        this.policy = policy;
    }

    /** The runtime whose agents use these tools, to re-tool them when a server's tools change. */
    void bind(AgentRuntime agents) {
        this.runtime = agents;
    }

    @Override
    public Optional<DynamicTool> find(String userId, String name) {
        for (McpServerRecord r : store.mcpServers().list(userId)) {
            if (name.startsWith(r.name() + "_")) {
                Optional<DynamicTool> tool = server(r).tools().stream().filter(t -> t.name().equals(name)).findFirst();
                if (tool.isPresent()) {
                    return tool;
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public List<DynamicTool> list(String userId) {
        return store.mcpServers().list(userId).stream().flatMap(r -> server(r).tools().stream())
                .sorted(Comparator.comparing(DynamicTool::name)).toList();
    }

    /** The live server of a stored one, built (with the tools it listed last) or rebuilt when its record changed. */
    McpServer server(McpServerRecord r) {
        return live.compute(r.id(), (id, old) -> {
            if (old != null && old.record().equals(r)) {
                return old;
            }
            if (old != null) {
                old.server().close();
            }
            McpConfig config = config(r);
            McpServer server = McpServer.of(config.spec(r.name()), options(config));
            try {
                server.rememberJson(r.tools());
            } catch (IllegalArgumentException e) {
                LOG.warn("MCP server '{}' of user '{}': its stored tools are unreadable ({}); refresh it", r.name(),
                        r.userId(), e.getMessage());
            }
            return new Live(r, server);
        }).server();
    }

    /** The stored server's settings with its secrets opened. */
    McpConfig config(McpServerRecord r) {
        String secret = r.sealedSecrets().isEmpty() ? "{}" : secrets.open(aad(r.userId(), r.name()), r.sealedSecrets())
                .orElseThrow(() -> ApiException.of(Status.SERVICE_UNAVAILABLE_503, "The secrets of MCP server '" + r.name()
                        + "' cannot be opened: the operator's " + ProviderSecrets.KEY_VARIABLE + " is not the key they "
                        + "were sealed with. Register the server's credentials again (PATCH it)."));
        return McpConfig.stored(r.type(), r.config(), secret);
    }

    /**
     * Registers a server of {@code owner} and lists its tools (a server that cannot be reached is kept, its status
     * saying why).
     *
     * @throws ApiException 403 for a stdio server a user key may not start, 400 for an address it may not reach or
     *                      settings the MCP client cannot use, 409 for a name the owner has, 501 for secrets without a key
     */
    McpServerRecord create(Caller caller, String owner, String name, McpConfig config) {
        check(caller, name, config);
        McpServerRecord r;
        try {
            r = store.mcpServers().create(owner, name, config.type().label(), config.publicJson(), seal(owner, name, config));
        } catch (DuplicateException e) {
            throw ApiException.conflict(e.getMessage());
        }
        LOG.info("User '{}' registered MCP server '{}' ({})", owner, name, config.spec(name).describe());
        return tryRefresh(r);
    }

    /** Changes a server's name and settings (re-sealing its secrets) and lists its tools again. */
    McpServerRecord update(Caller caller, McpServerRecord r, String name, McpConfig config) {
        check(caller, name, config);
        McpServerRecord changed;
        try {
            changed = store.mcpServers().update(r.userId(), r.id(), name, config.type().label(), config.publicJson(),
                    seal(r.userId(), name, config));
        } catch (DuplicateException e) {
            throw ApiException.conflict(e.getMessage());
        }
        if (!name.equals(r.name())) {
            detach(r, known(r));
        }
        return tryRefresh(changed);
    }

    /**
     * A server {@code caller} may reach with {@code config}, not kept (to test settings before registering them); the
     * caller closes it.
     */
    McpServer probe(Caller caller, String name, McpConfig config) {
        check(caller, name, config);
        return McpServer.of(config.spec(name), options(config));
    }

    private McpServerOptions options(McpConfig config) {
        McpServerOptions options = policy.options();
        return config.operator() || policy.privateAddresses() ? options : options.withAddressCheck(PublicAddresses::isPublic);
    }

    /** Removes a server: its session ends and its tools leave its owner's agents. */
    void delete(McpServerRecord r) {
        detach(r, known(r));
        store.mcpServers().delete(r.userId(), r.id());
        Live old = live.remove(r.id());
        if (old != null) {
            old.server().close();
        }
        retool(r.userId());
    }

    /**
     * Lists the server's tools again, keeps them, and re-tools the owner's agents; tools that are gone leave them.
     *
     * @throws ApiException 502 when the server cannot be reached or does not answer, saying why
     */
    Refresh refresh(McpServerRecord r) {
        McpServer server = server(r);
        List<String> before = server.knownTools().stream().map(McpSchema.Tool::name).toList();
        List<McpSchema.Tool> tools;
        try {
            tools = server.listTools();
        } catch (McpServerException e) {
            throw ApiException.of(Status.BAD_GATEWAY_502, e.getMessage());
        }
        McpServerRecord kept = store.mcpServers().rememberTools(r.userId(), r.id(), server.knownToolsJson());
        live.computeIfPresent(r.id(), (id, l) -> l.server() == server ? new Live(kept, server) : l);
        List<String> now = tools.stream().map(McpSchema.Tool::name).toList();
        List<String> removed = before.stream().filter(n -> !now.contains(n)).toList();
        detach(r, removed);
        retool(r.userId());
        return new Refresh(now.stream().filter(n -> !before.contains(n)).toList(), removed, now);
    }

    private McpServerRecord tryRefresh(McpServerRecord r) {
        try {
            refresh(r);
        } catch (ApiException e) {
            LOG.warn("MCP server '{}' of user '{}' is registered but its tools could not be listed: {}", r.name(),
                    r.userId(), e.getMessage());
        }
        return store.mcpServers().get(r.userId(), r.id()).orElse(r);
    }

    private List<String> known(McpServerRecord r) {
        return server(r).knownTools().stream().map(McpSchema.Tool::name).toList();
    }

    /** Takes the server's tools of those MCP names out of its owner's agents. */
    private void detach(McpServerRecord r, List<String> mcpNames) {
        AgentRuntime agents = runtime;
        if (agents == null || mcpNames.isEmpty()) {
            return;
        }
        McpServer server = server(r);
        List<String> gone = mcpNames.stream().map(server::toolName).toList();
        if (gone.isEmpty()) {
            return;
        }
        for (AgentDefinition d : agents.list(r.userId())) {
            if (d.tools().stream().anyMatch(gone::contains)) {
                List<String> tools = new ArrayList<>(d.tools());
                tools.removeAll(gone);
                agents.changeTools(r.userId(), d.id(), tools);
            }
        }
    }

    private void retool(String userId) {
        AgentRuntime agents = runtime;
        if (agents != null) {
            agents.retool(userId);
        }
    }

    /** The operator's rules for what a caller may register. */
    private void check(Caller caller, String name, McpConfig config) {
        McpServerSpec spec;
        try {
            spec = config.spec(name);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage() + ". Nothing was stored.");
        }
        if (caller.admin()) {
            return;
        }
        if (config.type() == McpTransport.STDIO) {
            if (!policy.stdioPrograms().contains(config.command())) {
                throw ApiException.forbidden("A stdio MCP server is a program this server would start: only an admin key "
                        + "registers one, unless the operator allows its program (engram serve --mcp-command "
                        + config.command() + "). Use an sse or streamable_http server instead. Nothing was stored.");
            }
            for (String variable : config.env().keySet()) {
                String upper = variable.toUpperCase(Locale.ROOT);
                if (UNSAFE_ENV.contains(upper) || UNSAFE_ENV_PREFIXES.stream().anyMatch(upper::startsWith)) {
                    throw ApiException.forbidden("The environment variable " + variable + " can make a program run other "
                            + "code, so only an admin key may set it for a stdio MCP server. Nothing was stored.");
                }
            }
        } else if (!policy.privateAddresses()) {
            try {
                for (InetAddress a : InetAddress.getAllByName(spec.host())) {
                    if (!PublicAddresses.isPublic(a)) {
                        throw ApiException.badRequest("MCP server '" + name + "' is at " + spec.host() + ", which resolves "
                                + "to " + a.getHostAddress() + ": this server reaches only public addresses for API users "
                                + "(the operator may allow others with engram serve --mcp-private-networks). Nothing was "
                                + "stored.");
                    }
                }
            } catch (UnknownHostException e) {
                throw ApiException.badRequest("MCP server '" + name + "': the host " + spec.host() + " is unknown. Nothing "
                        + "was stored.");
            }
        }
    }

    private String seal(String owner, String name, McpConfig config) {
        Optional<String> secret = config.secretJson();
        if (secret.isEmpty()) {
            return "";
        }
        if (!secrets.canSeal()) {
            throw ApiException.of(Status.NOT_IMPLEMENTED_501, "This server keeps no MCP server secrets (environment values, "
                    + "headers, tokens): its operator has not set " + ProviderSecrets.KEY_VARIABLE + " (32 random bytes in "
                    + "base64, e.g. openssl rand -base64 32), the key they are encrypted with. Nothing was stored.");
        }
        return secrets.seal(aad(owner, name), secret.get());
    }

    /** What a server's secrets are bound to: its owner and name, so that they cannot be moved to another row. */
    private static String aad(String owner, String name) {
        return "mcp:" + owner + ":" + name;
    }

    @Override
    public void close() {
        live.values().forEach(l -> l.server().close());
        live.clear();
    }
}
