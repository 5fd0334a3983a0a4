package dev.engram.tools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An operator-managed directory of named items (files: keys, credentials, certificates, data) that the
 * {@code vault_copyto} tool copies into an agent's workspace without their content ever passing through the model.
 * The vault's manifest, {@value #MANIFEST} at its root, names each item, its file and the agents that may use it:
 *
 * <pre>{@code
 * {"items": [
 *   {"name": "deploy-key", "file": "keys/deploy_key", "agents": ["ops", "agent-1a2b3c4d"],
 *    "description": "SSH key of the deploy host"},
 *   {"name": "sample-data", "file": "data/sample.csv", "agents": ["*"]}
 * ]}
 * }</pre>
 *
 * An agent is named by its id or its name; {@code *} is every agent. A file is a path relative to the vault; it must
 * be a regular file inside the vault after resolving symbolic links. The manifest is read when the vault is opened
 * (restart to change it); the files are read at each copy.
 */
public final class Vault {
    /** The manifest's file name, at the vault's root. */
    public static final String MANIFEST = "vault.json";
    /** The largest item copied, in bytes: 64 MiB. */
    public static final long MAX_ITEM_BYTES = 64L << 20;
    /** What an item's name looks like. */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

    /**
     * One item of the vault.
     *
     * @param name        what the model calls it
     * @param file        its file, relative to the vault
     * @param agents      the agents (ids or names) that may use it; {@code *} for every agent
     * @param description what it is, for the model; may be empty
     */
    public record Item(String name, String file, Set<String> agents, String description) {
        public Item {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(file, "file");
            agents = Set.copyOf(agents);
            Objects.requireNonNull(description, "description");
        }

        /** Whether the agent of that id and name may use the item. */
        public boolean allows(String agentId, Optional<String> agentName) {
            return agents.contains("*") || agents.contains(agentId) || agentName.map(agents::contains).orElse(false);
        }
    }

    private final Path root;
    private final Map<String, Item> items;

    private Vault(Path root, Map<String, Item> items) {
        this.root = root;
        this.items = items;
    }

    /**
     * Opens the vault at {@code dir} and reads its manifest.
     *
     * @throws IllegalArgumentException if the directory or its manifest is missing, the manifest is not valid (the message
     *                                  says where), or an item's file is missing, not a regular file, or outside the vault
     */
    public static Vault open(Path dir) {
        Objects.requireNonNull(dir, "vault directory must not be null");
        Path root;
        try {
            root = dir.toRealPath();
        } catch (IOException e) {
            throw new IllegalArgumentException("the vault directory " + dir + " does not exist; create it with a " + MANIFEST);
        }
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("the vault " + dir + " is not a directory");
        }
        Path manifest = root.resolve(MANIFEST);
        if (!Files.isRegularFile(manifest, LinkOption.NOFOLLOW_LINKS)) {
            throw new IllegalArgumentException("the vault " + dir + " has no " + MANIFEST + " naming its items and the agents "
                    + "that may use each (see the README: Workbench, vault)");
        }
        JsonNode json;
        try {
            json = JsonMapper.builder().build().readTree(Files.readString(manifest));
        } catch (IOException | JacksonException e) {
            throw new IllegalArgumentException("cannot read " + manifest + ": " + e.getMessage(), e);
        }
        JsonNode list = json.path("items");
        if (!list.isArray()) {
            throw new IllegalArgumentException(manifest + " must be an object with an \"items\" array");
        }
        Map<String, Item> items = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode n = list.get(i);
            String where = manifest + ", item " + (i + 1) + ": ";
            String name = n.path("name").asString("");
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(where + "\"name\" must be 1 to 64 letters, digits, dots, dashes or "
                        + "underscores, got '" + name + "'");
            }
            String file = n.path("file").asString("");
            if (file.isBlank()) {
                throw new IllegalArgumentException(where + "\"file\" (a path relative to the vault) is missing");
            }
            checkFile(root, file, where);
            Set<String> agents = new LinkedHashSet<>();
            n.path("agents").forEach(a -> agents.add(a.asString("")));
            if (agents.isEmpty() || agents.contains("")) {
                throw new IllegalArgumentException(where + "\"agents\" must list the agents (ids or names, or \"*\") that may "
                        + "use '" + name + "'");
            }
            if (items.putIfAbsent(name, new Item(name, file, agents, n.path("description").asString(""))) != null) {
                throw new IllegalArgumentException(where + "the name '" + name + "' is used twice");
            }
        }
        return new Vault(root, items);
    }

    /** The vault's directory (its real path). */
    public Path root() {
        return root;
    }

    /** Every item, in the manifest's order. */
    public List<Item> items() {
        return List.copyOf(items.values());
    }

    /** The item of that name. */
    public Optional<Item> item(String name) {
        return Optional.ofNullable(items.get(name));
    }

    /** The items the agent may use, in the manifest's order. */
    public List<Item> itemsFor(String agentId, Optional<String> agentName) {
        List<Item> out = new ArrayList<>();
        for (Item item : items.values()) {
            if (item.allows(agentId, agentName)) {
                out.add(item);
            }
        }
        return out;
    }

    /**
     * The real path of an item's file, checked now: a regular file inside the vault after resolving symbolic links, not
     * the manifest, and within {@link #MAX_ITEM_BYTES}.
     *
     * @throws IllegalArgumentException if it is not (the message is safe to show the model: it names no path outside)
     */
    Path file(Item item) {
        return checkFile(root, item.file(), "vault item '" + item.name() + "': ");
    }

    private static Path checkFile(Path root, String file, String where) {
        Path real;
        try {
            Path given = root.resolve(file).normalize();
            if (!given.startsWith(root)) {
                throw new IllegalArgumentException(where + "its file is outside the vault");
            }
            real = given.toRealPath();
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException(where + "its file is missing");
        }
        if (!real.startsWith(root)) {
            throw new IllegalArgumentException(where + "its file leads outside the vault through a symbolic link");
        }
        if (!Files.isRegularFile(real) || real.equals(root.resolve(MANIFEST))) {
            throw new IllegalArgumentException(where + "its file is not a regular file of the vault");
        }
        try {
            if (Files.size(real) > MAX_ITEM_BYTES) {
                throw new IllegalArgumentException(where + "its file is larger than " + MAX_ITEM_BYTES + " bytes");
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(where + "its file cannot be read");
        }
        return real;
    }

    @Override
    public String toString() {
        return "Vault[" + root + ", " + items.size() + " items]";
    }
}
