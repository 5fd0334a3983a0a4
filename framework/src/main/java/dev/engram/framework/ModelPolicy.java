package dev.engram.framework;

import java.io.IOException;
import java.net.URI;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which model specs ({@code ChatModel.of} reads them) a spec that does not come from the operator may name: one
 * an API user sends, or an agent file carries. Every such spec goes to a model the operator chose, because a spec
 * decides where the conversation is sent and which file is read: a provider model ({@code openai:MODEL},
 * {@code anthropic:MODEL}, {@code gemini:MODEL}, {@code ollama:MODEL}) is always allowed, its endpoint and key
 * being the operator's environment's; an endpoint ({@code http(s)://host:port/path#MODEL}) or a script
 * ({@code script:FILE}) only when it matches one of the operator's patterns (globs, {@code *} any run and
 * {@code ?} one character, such as {@code http://127.0.0.1:8080/*} or {@code script:/srv/scripts/*}), or is a
 * spec the operator named exactly ({@link #allowSpec}, e.g. the server's own default model).
 *
 * <p>An endpoint is matched as {@code scheme://host[:port]/path#model} rebuilt from its parts (a user part,
 * query or odd host is refused), so that the host a pattern names is the host that is called; a script as its
 * absolute path with {@code ..} and symbolic links resolved. Immutable; each {@code allow...} returns a new policy.
 *
 * <pre>{@code
 * ModelPolicy policy = ModelPolicy.providersOnly().allow("http://127.0.0.1:8080/*").allowSpec("script:/srv/demo.json");
 * policy.refusal("http://169.254.169.254/latest#x"); // Optional["'http://...' is a model endpoint the operator has not allowed; ..."]
 * }</pre>
 */
public final class ModelPolicy {
    /** The providers whose models are always allowed, as {@code ModelSpec.parse} names them. */
    public static final List<String> PROVIDERS = List.of("openai", "anthropic", "gemini", "ollama");

    private static final ModelPolicy PROVIDERS_ONLY = new ModelPolicy(List.of(), Set.of());

    private final List<String> patterns;
    private final List<Pattern> compiled;
    private final Set<String> specs;

    private ModelPolicy(List<String> patterns, Set<String> specs) {
        this.patterns = List.copyOf(patterns);
        this.compiled = patterns.stream().map(p -> Globs.compile(canonicalPattern(p))).toList();
        this.specs = Set.copyOf(specs);
    }

    /** Provider models only: no endpoint, no script. */
    public static ModelPolicy providersOnly() {
        return PROVIDERS_ONLY;
    }

    /**
     * This policy, also allowing the endpoints or scripts that match {@code pattern}.
     *
     * @throws IllegalArgumentException if the pattern names neither an endpoint ({@code http(s)://...}) nor a
     *                                  script ({@code script:...}): provider models need no pattern
     */
    public ModelPolicy allow(String pattern) {
        Objects.requireNonNull(pattern, "pattern must not be null");
        String p = pattern.strip();
        if (!(isEndpoint(p) || p.regionMatches(true, 0, "script:", 0, 7)) || p.length() <= 8) {
            throw new IllegalArgumentException("a model pattern names endpoints (http://127.0.0.1:8080/*) or scripts "
                    + "(script:/srv/scripts/*), got '" + pattern + "'; provider models (openai:MODEL, anthropic:MODEL, "
                    + "gemini:MODEL, ollama:MODEL) are always allowed");
        }
        List<String> all = new ArrayList<>(patterns);
        all.add(p);
        return new ModelPolicy(all, specs);
    }

    /** This policy, also allowing every pattern of {@code patterns}; see {@link #allow(String)}. */
    public ModelPolicy allow(List<String> patterns) {
        ModelPolicy policy = this;
        for (String p : patterns) {
            policy = policy.allow(p);
        }
        return policy;
    }

    /** This policy, also allowing exactly {@code spec} (the operator's own, e.g. a server's default model). */
    public ModelPolicy allowSpec(String spec) {
        Objects.requireNonNull(spec, "spec must not be null");
        if (spec.isBlank()) {
            throw new IllegalArgumentException("an allowed model spec must not be blank");
        }
        Set<String> all = new LinkedHashSet<>(specs);
        all.add(spec.strip());
        return new ModelPolicy(patterns, all);
    }

    /** The operator's patterns, as given. */
    public List<String> patterns() {
        return patterns;
    }

    /** Whether {@code spec} may be used. */
    public boolean allows(String spec) {
        return refusal(spec).isEmpty();
    }

    /**
     * Why {@code spec} may not be used, as a sentence that says what is allowed instead; empty when it may be.
     * The sentence quotes the spec, so that a caller can add which field held it.
     */
    public Optional<String> refusal(String spec) {
        Objects.requireNonNull(spec, "spec must not be null");
        String s = spec.strip();
        if (s.isEmpty()) {
            return Optional.of("an empty model spec is not a model; " + allowed());
        }
        if (specs.contains(s)) {
            return Optional.empty();
        }
        if (isEndpoint(s)) {
            return canonicalEndpoint(s).filter(this::matches).isPresent() ? Optional.empty()
                    : Optional.of("'" + spec + "' is a model endpoint the operator has not allowed; " + allowed());
        }
        int colon = s.indexOf(':');
        String provider = colon > 0 ? s.substring(0, colon).toLowerCase(Locale.ROOT) : "";
        String model = colon > 0 ? s.substring(colon + 1) : "";
        if (provider.equals("script")) {
            return canonicalScript(model).filter(this::matches).isPresent() ? Optional.empty()
                    : Optional.of("'" + spec + "' is a model script the operator has not allowed; " + allowed());
        }
        if (PROVIDERS.contains(provider) && !model.isBlank() && model.chars().noneMatch(c -> c <= ' ' || c == 0x7f)) {
            return Optional.empty();
        }
        return Optional.of("'" + spec + "' is not a provider model; " + allowed());
    }

    /** What is allowed, as the end of a refusal. */
    public String allowed() {
        StringBuilder sb = new StringBuilder("use a provider model (openai:MODEL, anthropic:MODEL, gemini:MODEL, ollama:MODEL; "
                + "in Letta's form openai/gpt-4o-mini)");
        if (!patterns.isEmpty()) {
            sb.append(" or a spec matching ").append(String.join(", ", patterns));
        } else {
            sb.append("; endpoints (http(s)://...) and scripts (script:FILE) only when the operator allows them "
                    + "(engram serve --allow-model PATTERN)");
        }
        return sb.toString();
    }

    private boolean matches(String canonical) {
        return compiled.stream().anyMatch(p -> p.matcher(canonical).matches());
    }

    private static boolean isEndpoint(String s) {
        return s.startsWith("http://") || s.startsWith("https://");
    }

    /**
     * {@code scheme://host[:port]/path#model} rebuilt from the parts the HTTP client will use; empty for a spec
     * with a user part, a query, no host or no model, which is never allowed.
     */
    static Optional<String> canonicalEndpoint(String s) {
        int hash = s.indexOf('#');
        String model = hash < 0 ? "" : s.substring(hash + 1);
        try {
            URI uri = new URI(hash < 0 ? s : s.substring(0, hash)).normalize();
            if (uri.getHost() == null || uri.getRawUserInfo() != null || uri.getRawQuery() != null
                    || uri.getRawAuthority() == null || uri.getRawAuthority().contains("@")) {
                return Optional.empty();
            }
            String path = uri.getRawPath() == null ? "" : uri.getRawPath();
            return Optional.of(uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getHost().toLowerCase(Locale.ROOT)
                    + (uri.getPort() >= 0 ? ":" + uri.getPort() : "") + path + "#" + model);
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
    }

    /** {@code script:} and the file's real path (absolute, {@code ..} and links resolved as far as it exists). */
    static Optional<String> canonicalScript(String file) {
        try {
            return file.isBlank() ? Optional.empty() : Optional.of("script:" + real(Path.of(file)));
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    /** A pattern in the form specs are matched in: a script pattern's directory resolved as a spec's path is. */
    private static String canonicalPattern(String pattern) {
        if (isEndpoint(pattern)) {
            return pattern;
        }
        String path = pattern.substring("script:".length());
        int glob = firstGlob(path);
        if (glob < 0) {
            return "script:" + real(Path.of(path));
        }
        int slash = path.lastIndexOf('/', glob);
        if (slash < 0) {
            return "script:" + real(Path.of(".")) + "/" + path;
        }
        String dir = path.substring(0, Math.max(slash, 1));
        return "script:" + real(Path.of(dir)) + (slash == 0 ? "" : "/") + path.substring(slash + 1);
    }

    private static int firstGlob(String s) {
        int star = s.indexOf('*');
        int mark = s.indexOf('?');
        return star < 0 ? mark : mark < 0 ? star : Math.min(star, mark);
    }

    /** The path with links resolved for its longest existing part, absolute and normalised. */
    private static String real(Path path) {
        Path p = path.toAbsolutePath().normalize();
        Path existing = p;
        while (existing != null) {
            try {
                Path realPart = existing.toRealPath();
                return realPart.resolve(existing.relativize(p)).normalize().toString();
            } catch (IOException e) {
                existing = existing.getParent();
            }
        }
        return p.toString();
    }

    @Override
    public String toString() {
        return "ModelPolicy[providers, patterns=" + patterns + ", specs=" + specs + "]";
    }
}
