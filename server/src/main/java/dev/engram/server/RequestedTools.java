package dev.engram.server;

import dev.engram.agents.LettaTools;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The tools an agent create or modify names, as Engram's tool names. A Letta built-in goes to Engram's equivalent
 * ({@link LettaTools#equivalent}: {@code fetch_webpage} is {@code web_fetch}) when this server offers it; every name
 * it cannot offer, a Letta built-in the operator did not enable or a name nobody knows, is refused with a 400 in
 * Letta's own wording ({@code Tools not found by name: {'web_search', 'fetch_webpage'}}), which Letta's clients
 * match on to retry without those tools, followed by how to enable the built-ins among them. Nothing is created or
 * changed on refusal: the routes resolve before they build anything.
 */
final class RequestedTools {
    /** Letta's wording for tools named in {@code tools} that the server does not have. */
    static final String NOT_FOUND_BY_NAME = "Tools not found by name: ";
    /** Letta's wording for tools named in {@code tool_ids} that the server does not have (three spaces, as Letta's). */
    static final String NOT_FOUND_BY_ID = "Tools not found by id:   ";

    /** How to get each Letta built-in Engram can offer only when the operator enables it, or why it cannot. */
    private static final Map<String, String> HOW = new LinkedHashMap<>();

    static {
        HOW.put("web_search", "web_search is offered when the operator starts engram serve with --web and sets a search "
                + "provider (BRAVE_API_KEY, TAVILY_API_KEY or SEARXNG_URL)");
        HOW.put("fetch_webpage", "fetch_webpage (Engram's web_fetch) is offered when the operator starts engram serve "
                + "with --web");
        HOW.put("run_code", "run_code is offered when the operator starts engram serve with --code (Python and "
                + "JavaScript in the bubblewrap sandbox)");
        HOW.put("run_code_with_tools", "Engram's code mode, a program that calls the agent's tools, is execute_code, "
                + "offered when the operator starts engram serve with --code");
    }

    private RequestedTools() {
    }

    /**
     * Engram's names for {@code requested}, in order and without repeats, each a name in {@code offered}.
     *
     * @param requested the names as the request gave them (Letta's or Engram's)
     * @param offered   the tools the agent can be given: the server's, and for an existing agent its own
     * @param idPrefix  "" for the {@code tools} field; for {@code tool_ids}, the id prefix, which the refusal repeats
     * @throws ApiException a 400 in Letta's wording naming every tool that is not offered
     */
    static List<String> resolve(List<String> requested, Collection<String> offered, String idPrefix) {
        Set<String> out = new LinkedHashSet<>();
        List<String> missing = new ArrayList<>();
        for (String name : requested) {
            String engram = offered.contains(name) ? name : LettaTools.equivalent(name);
            if (offered.contains(engram)) {
                out.add(engram);
            } else if (!missing.contains(name)) {
                missing.add(name);
            }
        }
        if (!missing.isEmpty()) {
            throw ApiException.badRequest(refusal(missing, idPrefix));
        }
        return List.copyOf(out);
    }

    /** Letta's sentence for {@code missing}, then how to enable (or why Engram lacks) the Letta built-ins among them. */
    private static String refusal(List<String> missing, String idPrefix) {
        String set = missing.stream().map(n -> "'" + idPrefix + n + "'").collect(Collectors.joining(", ", "{", "}"));
        StringBuilder text = new StringBuilder(idPrefix.isEmpty() ? NOT_FOUND_BY_NAME : NOT_FOUND_BY_ID).append(set).append('.');
        Set<String> hints = new LinkedHashSet<>();
        boolean unknown = false;
        for (String name : missing) {
            String how = HOW.get(name);
            if (how != null) {
                hints.add(how);
            } else if (LettaTools.isLettaTool(name)) {
                hints.add(name + " is a Letta built-in this server does not offer");
            } else {
                unknown = true;
            }
        }
        hints.forEach(h -> text.append(' ').append(h).append('.'));
        if (unknown) {
            text.append(" GET /v1/tools lists the tools this server offers.");
        }
        return text.toString();
    }
}
