package dev.engram.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * Letta's V1 contract ({@code shared/letta/openapi.json}, found in the first ancestor of the module's directory that has
 * it, or at {@code -Dengram.lettaContract=PATH}) and its self-hosted operations: every operation but those tagged with
 * one of Letta Cloud's tags ({@link #CLOUD_TAGS}) or an {@code _internal_} tag.
 */
final class LettaContract {
    /** The tags of Letta Cloud's operations, which no self-hosted server has. */
    static final Set<String> CLOUD_TAGS = Set.of("templates", "projects", "pipelines", "feeds", "clientSideAccessTokens",
            "environments", "deployments");
    /** The HTTP methods an operation of the contract may have. */
    private static final List<String> METHODS = List.of("get", "post", "put", "patch", "delete");

    /** One operation of the contract. */
    record Operation(String method, String path, String operationId, List<String> tags, JsonNode spec) {
        /** {@code METHOD /path}. */
        String name() {
            return method + " " + path;
        }

        boolean selfHosted() {
            return tags.stream().noneMatch(t -> CLOUD_TAGS.contains(t) || t.startsWith("_internal_"));
        }
    }

    private LettaContract() {
    }

    /** The contract's file, when this checkout has it. */
    static Optional<Path> file() {
        String given = System.getProperty("engram.lettaContract");
        if (given != null) {
            return Optional.of(Path.of(given)).filter(Files::isRegularFile);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("shared/letta/openapi.json");
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The contract as JSON. */
    static JsonNode read(Path file) {
        try {
            return ServerFixture.JSON.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every operation of the contract, in its order. */
    static List<Operation> operations(JsonNode contract) {
        List<Operation> ops = new ArrayList<>();
        for (var path : contract.path("paths").properties()) {
            for (String method : METHODS) {
                JsonNode op = path.getValue().path(method);
                if (op.isObject()) {
                    List<String> tags = new ArrayList<>();
                    op.path("tags").forEach(t -> tags.add(t.asString()));
                    ops.add(new Operation(method.toUpperCase(), path.getKey(), op.path("operationId").asString(""),
                            List.copyOf(tags), op));
                }
            }
        }
        return ops;
    }
}
