package dev.engram.memory;

import dev.engram.memory.spi.Rows;
import java.util.List;
import java.util.Optional;

/**
 * Each user's tools written from source ({@link CustomTool}). Backends keep them through the optional custom tool
 * methods of {@link Rows}; over a backend without them every method here throws {@link UnsupportedOperationException}.
 * A user sees only their own tools: another user's id is not found. Names are unique per user.
 */
public final class CustomToolStore {
    private final StoreCore store;

    CustomToolStore(StoreCore store) {
        this.store = store;
    }

    /**
     * Stores a new tool of {@code userId}.
     *
     * @throws DuplicateException if the user has a tool of that name (nothing is stored)
     */
    public CustomTool create(String userId, CustomToolSpec spec) {
        Checks.id(userId, "user id");
        Checks.notNull(spec, "tool spec");
        return store.write(rows -> {
            duplicate(of(rows, userId), spec.name(), "");
            CustomTool t = new CustomTool(Ids.next("tool"), userId, spec, store.now(), store.now());
            rows.putCustomTool(t);
            return t;
        });
    }

    /**
     * Creates the tool, or replaces the spec of the user's tool of the same name (Letta's upsert); one unit of work.
     */
    public CustomTool upsert(String userId, CustomToolSpec spec) {
        Checks.id(userId, "user id");
        Checks.notNull(spec, "tool spec");
        return store.write(rows -> {
            Optional<CustomTool> existing = of(rows, userId).stream().filter(t -> t.name().equals(spec.name())).findFirst();
            CustomTool t = existing.map(e -> e.with(spec, store.now()))
                    .orElseGet(() -> new CustomTool(Ids.next("tool"), userId, spec, store.now(), store.now()));
            rows.putCustomTool(t);
            return t;
        });
    }

    /** The user's tool of that id. */
    public Optional<CustomTool> get(String userId, String id) {
        Checks.notNull(userId, "user id");
        Checks.notNull(id, "tool id");
        return store.read(rows -> rows.customTool(id).filter(t -> t.userId().equals(userId)));
    }

    /** The user's tool of that name. */
    public Optional<CustomTool> byName(String userId, String name) {
        Checks.notNull(userId, "user id");
        Checks.notNull(name, "tool name");
        return store.read(rows -> of(rows, userId).stream().filter(t -> t.name().equals(name)).findFirst());
    }

    /** The user's tools, oldest first. */
    public List<CustomTool> list(String userId) {
        Checks.notNull(userId, "user id");
        return store.read(rows -> of(rows, userId));
    }

    /**
     * Replaces the spec of the user's tool (its name too).
     *
     * @throws NotFoundException  if the user has no tool of that id
     * @throws DuplicateException if the new name is another of the user's tools' (nothing changes)
     */
    public CustomTool update(String userId, String id, CustomToolSpec spec) {
        Checks.notNull(spec, "tool spec");
        return store.write(rows -> {
            CustomTool t = rows.customTool(id).filter(x -> x.userId().equals(userId))
                    .orElseThrow(() -> new NotFoundException("Tool '" + id + "' not found."));
            duplicate(of(rows, userId), spec.name(), id);
            CustomTool changed = t.with(spec, store.now());
            rows.putCustomTool(changed);
            return changed;
        });
    }

    /** Removes the user's tool; returns whether there was one. */
    public boolean delete(String userId, String id) {
        return store.write(rows -> rows.customTool(id).filter(t -> t.userId().equals(userId)).isPresent()
                && rows.deleteCustomTool(id));
    }

    private static List<CustomTool> of(Rows rows, String userId) {
        return rows.listCustomTools(userId);
    }

    private static void duplicate(List<CustomTool> tools, String name, String exceptId) {
        if (tools.stream().anyMatch(t -> t.name().equals(name) && !t.id().equals(exceptId))) {
            throw new DuplicateException("A tool named '" + name + "' exists; choose another name, or change that one "
                    + "(PATCH /v1/tools/{tool_id}, or PUT /v1/tools/ to replace it).");
        }
    }
}
