package dev.engram.server;

import java.util.Arrays;
import java.util.List;

/**
 * A path template as Letta's contract and the route table write them ({@code /v1/agents/{agent_id}/tools}): its
 * segments, a trailing slash ignored, a {@code {name}} segment matching any one segment of a request's path. Used to
 * find which operation a request that no route took was meant for, and by the tests that compare the route table with
 * the contract.
 */
record PathTemplate(List<String> segments) {
    PathTemplate {
        segments = List.copyOf(segments);
    }

    /** The template of a path pattern or a request's path; a trailing slash is ignored. */
    static PathTemplate of(String path) {
        String trimmed = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        return new PathTemplate(Arrays.asList(trimmed.split("/", -1)));
    }

    /** The template with every parameter written {@code {}}, so that two templates differing in names compare equal. */
    String normalized() {
        return String.join("/", segments.stream().map(s -> parameter(s) ? "{}" : s).toList());
    }

    /** Whether a request's path (its segments literal) is one this template matches. */
    boolean matches(String requestPath) {
        List<String> path = of(requestPath).segments;
        if (path.size() != segments.size()) {
            return false;
        }
        for (int i = 0; i < path.size(); i++) {
            String s = segments.get(i);
            if (parameter(s) ? path.get(i).isEmpty() : !s.equals(path.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether this template is more specific than another of the same length: at the first segment where one has a
     * literal and the other a parameter, the literal wins ({@code /v1/blocks/count} over {@code /v1/blocks/{block_id}}),
     * as Letta's router declares such paths first.
     */
    boolean moreSpecificThan(PathTemplate other) {
        for (int i = 0; i < Math.min(segments.size(), other.segments.size()); i++) {
            boolean mine = parameter(segments.get(i));
            boolean theirs = parameter(other.segments.get(i));
            if (mine != theirs) {
                return theirs;
            }
        }
        return false;
    }

    private static boolean parameter(String segment) {
        return segment.startsWith("{") && segment.endsWith("}");
    }
}
