package dev.engram.framework;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Which tools an agent may call: allow and deny lists of tool-name globs ({@code *} and {@code ?}).
 * A tool is permitted when it matches an allow glob (an empty allow list allows everything) and no
 * deny glob. Deny wins.
 *
 * <pre>{@code
 * ToolPolicy policy = ToolPolicy.builder().allow("memory_*").allow("search").deny("memory_delete").build();
 * }</pre>
 */
public final class ToolPolicy {
    private static final ToolPolicy ALLOW_ALL = new ToolPolicy(List.of(), List.of(), List.of(), List.of());

    private final List<String> allowGlobs;
    private final List<String> denyGlobs;
    private final List<Pattern> allow;
    private final List<Pattern> deny;

    private ToolPolicy(List<String> allowGlobs, List<String> denyGlobs, List<Pattern> allow, List<Pattern> deny) {
        this.allowGlobs = allowGlobs;
        this.denyGlobs = denyGlobs;
        this.allow = allow;
        this.deny = deny;
    }

    /** Permits every tool. */
    public static ToolPolicy allowAll() {
        return ALLOW_ALL;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Whether a tool of this name may be called. */
    public boolean permits(String toolName) {
        for (Pattern p : deny) {
            if (p.matcher(toolName).matches()) {
                return false;
            }
        }
        if (allow.isEmpty()) {
            return true;
        }
        for (Pattern p : allow) {
            if (p.matcher(toolName).matches()) {
                return true;
            }
        }
        return false;
    }

    public List<String> allowGlobs() {
        return allowGlobs;
    }

    public List<String> denyGlobs() {
        return denyGlobs;
    }

    @Override
    public String toString() {
        return "ToolPolicy[allow=" + allowGlobs + ", deny=" + denyGlobs + "]";
    }

    /** Collects allow and deny globs. */
    public static final class Builder {
        private final List<String> allowGlobs = new ArrayList<>();
        private final List<String> denyGlobs = new ArrayList<>();

        private Builder() {
        }

        public Builder allow(String... globs) {
            for (String g : globs) {
                Globs.compile(g);
                allowGlobs.add(g);
            }
            return this;
        }

        public Builder deny(String... globs) {
            for (String g : globs) {
                Globs.compile(g);
                denyGlobs.add(g);
            }
            return this;
        }

        public ToolPolicy build() {
            return new ToolPolicy(List.copyOf(allowGlobs), List.copyOf(denyGlobs),
                    allowGlobs.stream().map(Globs::compile).toList(),
                    denyGlobs.stream().map(Globs::compile).toList());
        }
    }
}
