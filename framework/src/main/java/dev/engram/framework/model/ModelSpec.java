package dev.engram.framework.model;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which provider, model, endpoint and key to use.
 *
 * @param provider the wire format
 * @param model    the model name the provider expects
 * @param baseUrl  the endpoint base, e.g. {@code https://api.openai.com/v1}
 * @param apiKey   the key, if the provider needs one; never printed by {@link #toString()}
 * @param timeout  how long one HTTP exchange may take
 * @param retry    how transient failures are retried
 */
public record ModelSpec(Provider provider, String model, URI baseUrl, Optional<String> apiKey, Duration timeout,
        RetryPolicy retry) {
    /** The wire formats. */
    public enum Provider {
        OPENAI, ANTHROPIC, GEMINI, SCRIPT
    }

    public ModelSpec {
        Objects.requireNonNull(provider, "provider");
        if (model == null || model.isBlank()) {
            throw new IllegalArgumentException("a model spec needs a model name");
        }
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(retry, "retry");
    }

    /**
     * Parses {@code openai:MODEL}, {@code anthropic:MODEL}, {@code gemini:MODEL}, {@code ollama:MODEL},
     * {@code http(s)://host:port/path#MODEL} or {@code script:FILE}. Keys: {@code OPENAI_API_KEY},
     * {@code ANTHROPIC_API_KEY}, {@code GEMINI_API_KEY} (or {@code GOOGLE_API_KEY}), each sent only to its
     * provider's endpoint; base URLs can be overridden with {@code OPENAI_BASE_URL},
     * {@code ANTHROPIC_BASE_URL}, {@code GEMINI_BASE_URL}, {@code OLLAMA_HOST}. An
     * {@code http(s)://...#MODEL} endpoint gets a key only from its own variable,
     * {@link #endpointKeyVariable} ({@code ENGRAM_KEY_GPU_BOX_8000}), never from a provider's.
     *
     * @throws IllegalArgumentException naming what is wrong or missing
     */
    public static ModelSpec parse(String spec, Map<String, String> env) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(env, "env");
        String s = spec.strip();
        Duration timeout = Duration.ofSeconds(120);
        RetryPolicy retry = RetryPolicy.defaults();
        if (s.startsWith("http://") || s.startsWith("https://")) {
            int hash = s.indexOf('#');
            if (hash < 0 || hash == s.length() - 1) {
                throw new IllegalArgumentException("an OpenAI-compatible spec names the model after '#', e.g. "
                        + "http://localhost:8080/v1#llama-3.1-8b; got '" + spec + "'");
            }
            URI endpoint = URI.create(s.substring(0, hash));
            if (endpoint.getHost() == null) {
                throw new IllegalArgumentException("the endpoint of model spec '" + spec + "' has no host");
            }
            return new ModelSpec(Provider.OPENAI, s.substring(hash + 1), endpoint, endpointKey(endpoint, env), timeout, retry);
        }
        int colon = s.indexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("a model spec looks like provider:model (openai, anthropic, gemini, ollama, "
                    + "script) or http://host:port/v1#model; got '" + spec + "'");
        }
        String provider = s.substring(0, colon).toLowerCase(java.util.Locale.ROOT);
        String model = s.substring(colon + 1);
        return switch (provider) {
            case "openai" -> new ModelSpec(Provider.OPENAI, model,
                    URI.create(env.getOrDefault("OPENAI_BASE_URL", "https://api.openai.com/v1")),
                    Optional.of(requireKey(env, "openai", "OPENAI_API_KEY")), timeout, retry);
            case "anthropic" -> new ModelSpec(Provider.ANTHROPIC, model,
                    URI.create(env.getOrDefault("ANTHROPIC_BASE_URL", "https://api.anthropic.com")),
                    Optional.of(requireKey(env, "anthropic", "ANTHROPIC_API_KEY")), timeout, retry);
            case "gemini" -> new ModelSpec(Provider.GEMINI, model,
                    URI.create(env.getOrDefault("GEMINI_BASE_URL", "https://generativelanguage.googleapis.com")),
                    Optional.of(Optional.ofNullable(blankToNull(env.get("GEMINI_API_KEY")))
                            .orElseGet(() -> requireKey(env, "gemini", "GOOGLE_API_KEY"))), timeout, retry);
            case "ollama" -> new ModelSpec(Provider.OPENAI, model,
                    URI.create(ollamaBase(env.getOrDefault("OLLAMA_HOST", "http://localhost:11434"))),
                    Optional.empty(), Duration.ofSeconds(600), retry);
            case "script" -> new ModelSpec(Provider.SCRIPT, model, URI.create("file:" + model), Optional.empty(), timeout, retry);
            default -> throw new IllegalArgumentException("unknown model provider '" + provider
                    + "'; use openai, anthropic, gemini, ollama, script, or an http(s)://...#model URL");
        };
    }

    /**
     * The key for a custom endpoint: only from the variable named for that endpoint
     * ({@link #endpointKeyVariable}), or {@code OPENAI_API_KEY} when the endpoint is OpenAI's own host.
     * A key from the environment never goes to a host that a spec (perhaps from an imported agent file)
     * chose.
     */
    private static Optional<String> endpointKey(URI endpoint, Map<String, String> env) {
        Optional<String> own = Optional.ofNullable(blankToNull(env.get(endpointKeyVariable(endpoint))));
        if (own.isPresent() || !OPENAI_HOST.equalsIgnoreCase(endpoint.getHost()) || !"https".equals(endpoint.getScheme())) {
            return own;
        }
        return Optional.ofNullable(blankToNull(env.get("OPENAI_API_KEY")));
    }

    private static final String OPENAI_HOST = "api.openai.com";

    /**
     * The environment variable that holds the key of an OpenAI-compatible endpoint: {@code ENGRAM_KEY_}
     * followed by its host and port, upper case, every other character as {@code _}. For
     * {@code http://gpu-box:8000/v1} it is {@code ENGRAM_KEY_GPU_BOX_8000}; for
     * {@code https://api.together.xyz/v1}, {@code ENGRAM_KEY_API_TOGETHER_XYZ}.
     */
    public static String endpointKeyVariable(URI endpoint) {
        String hostPort = endpoint.getHost() + (endpoint.getPort() >= 0 ? "_" + endpoint.getPort() : "");
        return "ENGRAM_KEY_" + hostPort.toUpperCase(java.util.Locale.ROOT).replaceAll("[^A-Z0-9]", "_");
    }

    /**
     * Where the specs of {@code provider} ({@code openai}, {@code anthropic}, {@code gemini}, {@code ollama}) are sent
     * in {@code env} when its base-URL variable moves them from the provider's own endpoint: {@code OPENAI_BASE_URL},
     * {@code ANTHROPIC_BASE_URL}, {@code GEMINI_BASE_URL}, {@code OLLAMA_HOST} (as {@link #parse} reads them). Empty
     * when the variable is not set (or blank), and for any other provider.
     */
    public static Optional<String> baseUrlOverride(String provider, Map<String, String> env) {
        Objects.requireNonNull(env, "env");
        String variable = switch (Objects.requireNonNull(provider, "provider").toLowerCase(java.util.Locale.ROOT)) {
            case "openai" -> "OPENAI_BASE_URL";
            case "anthropic" -> "ANTHROPIC_BASE_URL";
            case "gemini" -> "GEMINI_BASE_URL";
            case "ollama" -> "OLLAMA_HOST";
            default -> null;
        };
        Optional<String> value = Optional.ofNullable(variable).map(env::get).map(ModelSpec::blankToNull).map(String::strip);
        return variable != null && variable.equals("OLLAMA_HOST") ? value.map(ModelSpec::ollamaBase) : value;
    }

    /** Whether {@code spec} names its own endpoint ({@code http(s)://...#model}) rather than a provider. */
    public static boolean namesEndpoint(String spec) {
        String s = spec.strip().toLowerCase(java.util.Locale.ROOT);
        return s.startsWith("http://") || s.startsWith("https://");
    }

    private static String ollamaBase(String host) {
        String base = host.startsWith("http") ? host : "http://" + host;
        return base.endsWith("/v1") ? base : base.replaceAll("/+$", "") + "/v1";
    }

    private static String requireKey(Map<String, String> env, String provider, String variable) {
        String key = blankToNull(env.get(variable));
        if (key == null) {
            throw new IllegalArgumentException("the " + provider + " provider needs an API key: set " + variable);
        }
        return key;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    public ModelSpec withBaseUrl(URI url) {
        return new ModelSpec(provider, model, url, apiKey, timeout, retry);
    }

    public ModelSpec withRetry(RetryPolicy policy) {
        return new ModelSpec(provider, model, baseUrl, apiKey, timeout, policy);
    }

    public ModelSpec withTimeout(Duration t) {
        return new ModelSpec(provider, model, baseUrl, apiKey, t, retry);
    }

    /** Names provider and model; the key is never shown. */
    @Override
    public String toString() {
        return provider.name().toLowerCase(java.util.Locale.ROOT) + ":" + model + " @ " + baseUrl
                + (apiKey.isPresent() ? " (key set)" : "");
    }
}
