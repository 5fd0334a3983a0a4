package dev.engram.tools;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.engram.framework.AiTool;
import dev.engram.framework.SafetyTier;
import dev.engram.framework.ToolContext;
import dev.engram.framework.ToolException;
import dev.engram.framework.ToolInfo;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.Scope;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code vault_list} and {@code vault_copyto}: the model sees the names, descriptions and sizes of the {@link Vault}
 * items its agent may use, and copies one into the workspace by name; the content goes from file to file and never
 * into a tool result. Every copy, and every refusal, is logged at INFO with the user, agent, item and destination;
 * the call and its result (without content) are also kept in the agent's conversation like every tool call.
 */
final class VaultTools {
    static final String LIST = "vault_list";
    static final String COPY = "vault_copyto";
    private static final Logger LOG = LoggerFactory.getLogger(VaultTools.class);

    private VaultTools() {
    }

    record ListInput() {
    }

    /** One item as the model sees it: never its content. */
    record Listed(String name, String description, long bytes) {
    }

    record CopyInput(@JsonPropertyDescription("The vault item's name, from vault_list.") String item,
            @JsonPropertyDescription("Where to put it, a file path relative to the workspace root, e.g. secrets/deploy_key.")
            String destination,
            @JsonPropertyDescription("Replace the destination if it exists; default false.") Optional<Boolean> overwrite) {
    }

    /** What the model is told about a copy. */
    record Copied(String item, String destination, long bytes, String message) {
    }

    static List<AiTool<?, ?>> all(Vault vault, Workspace workspace, MemoryStore store) {
        AiTool<ListInput, List<Listed>> list = AiTool.of(LIST, "List the operator's vault items this agent may copy into the "
                + "workspace with vault_copyto: their names, descriptions and sizes (never their contents). Returns a JSON "
                + "array of {name, description, bytes}.", ListInput.class, SafetyTier.READ_ONLY, (in, ctx) -> {
                    Scope scope = ToolScopes.of(ctx);
                    return vault.itemsFor(scope.agentId(), name(store, scope)).stream()
                            .map(i -> new Listed(i.name(), i.description(), size(vault, i))).toList();
                });
        AiTool<CopyInput, Copied> copy = new AiTool<>() {
            @Override
            public ToolInfo info() {
                return ToolInfo.of(COPY, "Copy a named item of the operator's vault (a key, a credential file, data) into "
                        + "the workspace, where programs the agent runs can use it. Its content never passes through you: "
                        + "do not read the copied file back unless the user asks. See the items with vault_list. Returns "
                        + "{item, destination, bytes, message}.", SafetyTier.SIDE_EFFECTING);
            }

            @Override
            public Class<CopyInput> inputType() {
                return CopyInput.class;
            }

            @Override
            public Copied execute(CopyInput in, ToolContext ctx) {
                Scope scope = ToolScopes.of(ctx);
                try {
                    Copied done = copy(vault, workspace, store, scope, in);
                    LOG.info("vault copy: user={} agent={} item={} destination={} bytes={}", scope.userId(), scope.agentId(),
                            in.item(), done.destination(), done.bytes());
                    return done;
                } catch (ToolException e) {
                    LOG.info("vault copy refused: user={} agent={} item={} destination={}: {}", scope.userId(),
                            scope.agentId(), in.item(), in.destination(), e.getMessage());
                    throw e;
                }
            }
        };
        return List.of(list, copy);
    }

    private static Copied copy(Vault vault, Workspace workspace, MemoryStore store, Scope scope, CopyInput in) {
        Vault.Item item = vault.item(in.item()).orElseThrow(() -> new ToolException("There is no vault item '" + in.item()
                + "'; see the items this agent may use with vault_list."));
        if (!item.allows(scope.agentId(), name(store, scope))) {
            throw new ToolException("Vault item '" + in.item() + "' is not available to this agent; see the items it may use "
                    + "with vault_list.");
        }
        Path source;
        try {
            source = vault.file(item);
        } catch (IllegalArgumentException e) {
            throw new ToolException("Vault item '" + in.item() + "' cannot be copied: " + e.getMessage().substring(
                    e.getMessage().indexOf(": ") + 2) + ". Tell the operator.");
        }
        Path target = workspace.writable(in.destination());
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolException("'" + in.destination() + "' is a directory; give a file path inside it, e.g. "
                    + in.destination().replaceAll("/+$", "") + "/" + item.name() + ".");
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS) && !in.overwrite().orElse(false)) {
            throw new ToolException("'" + in.destination() + "' exists; pass overwrite: true to replace it, or choose another path.");
        }
        try {
            Files.createDirectories(target.getParent());
            Path tmp = Files.createTempFile(target.getParent(), ".vault-", ".tmp");
            try {
                Files.copy(source, tmp, StandardCopyOption.REPLACE_EXISTING);
                try {
                    Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
                } catch (UnsupportedOperationException e) {
                    // not a POSIX file system: the file keeps the directory's default permissions
                }
                try {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
            long bytes = Files.size(target);
            String shown = workspace.display(target);
            return new Copied(item.name(), shown, bytes, "Copied vault item '" + item.name() + "' (" + bytes + " bytes) to "
                    + shown + ".");
        } catch (IOException e) {
            throw new ToolException("Could not copy vault item '" + item.name() + "' to '" + in.destination() + "': "
                    + e.getClass().getSimpleName() + ".");
        }
    }

    private static long size(Vault vault, Vault.Item item) {
        try {
            return Files.size(vault.file(item));
        } catch (IOException | IllegalArgumentException e) {
            return -1;
        }
    }

    /** The agent's name, when it has a record. */
    private static Optional<String> name(MemoryStore store, Scope scope) {
        return store.agents().get(scope).map(AgentRecord::name);
    }
}
