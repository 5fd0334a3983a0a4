package dev.engram.server;

import static io.helidon.http.Method.GET;
import static io.helidon.http.Method.POST;

import dev.engram.agents.Agent;
import dev.engram.agents.AgentNotFoundException;
import dev.engram.framework.ToolDefinition;
import dev.engram.memory.AgentRecord;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.Scope;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.node.ObjectNode;

/**
 * The routes Letta Code calls when it starts, answered as a self-hosted Letta server answers them: a stored message by
 * id ({@code GET /v1/messages/{id}}, the caller's own or 404), {@code POST /v1/tools/add-base-tools} (Engram's base
 * tools are always registered, so it adds nothing and lists them), Letta Cloud's {@code /v1/metadata/balance} and
 * {@code /v1/metadata/user} (a self-hosted server has no credits or organization), and an agent's
 * {@code secrets}, {@code mcp-servers} and {@code repositories} (routes outside Letta's V1 contract that Letta Code
 * reads; Engram keeps none of them per agent, so they are empty).
 */
final class StartupRoutes {
    /** What {@code billing_tier} says: a server its operator runs, without Letta Cloud's plans. */
    static final String BILLING_TIER = "self-hosted";

    private final Api api;

    StartupRoutes(Api api) {
        this.api = api;
    }

    List<Route> routes() {
        return List.of(
                Route.caller(GET, "/v1/messages/{message_id}", this::message),
                Route.caller(POST, "/v1/tools/add-base-tools", (caller, req, res) -> baseTools(res)),
                Route.caller(GET, "/v1/metadata/balance", (caller, req, res) -> balance(res)),
                Route.caller(GET, "/v1/metadata/user", (caller, req, res) -> user(caller, res)),
                Route.agent(api, GET, "/v1/agents/{agent_id}/secrets", (agent, req, res) -> Api.json(res, List.of())),
                Route.agent(api, GET, "/v1/agents/{agent_id}/mcp-servers", (agent, req, res) -> Api.json(res, List.of())),
                Route.agent(api, GET, "/v1/agents/{agent_id}/repositories", (agent, req, res) -> Api.json(res,
                        Body.JSON.createObjectNode().set("repositories", Body.JSON.createArrayNode()))));
    }

    /**
     * The Letta messages of one stored message of the caller's (several when an assistant message carries reasoning and
     * tool calls; none for {@code send_message}'s result, which shows as the assistant message it was); a 404 for an id
     * that is not one of this server's, or a message of someone else's agent.
     */
    private void message(Caller caller, ServerRequest req, ServerResponse res) {
        String id = req.path().pathParameters().get("message_id");
        long stored = Ids.message(id, "Message");
        for (String user : api.users(caller)) {
            for (AgentRecord record : api.store.agents().list(user)) {
                Optional<ConversationMessage> found = api.store.messages().get(record.scope(), stored);
                if (found.isPresent() && visible(record.scope())) {
                    Api.json(res, LettaViews.messages(List.of(found.get()), true,
                            callId -> callName(record.scope(), stored, callId),
                            callId -> MessageRoutes.laterOutcome(api, record.scope(), stored, callId)));
                    return;
                }
            }
        }
        throw ApiException.notFound("Message '" + id + "' not found.");
    }

    /** Whether the agent is one the API shows (not one acting for another, which no route names). */
    private boolean visible(Scope scope) {
        try {
            return api.runtime.current(scope.userId(), scope.agentId()).definition().actsFor().isEmpty();
        } catch (AgentNotFoundException e) {
            return false;
        }
    }

    /** The tool a call was made to, from the assistant messages shortly before message {@code before}. */
    private Optional<String> callName(Scope scope, long before, String callId) {
        return api.store.messages().list(scope, MessageQuery.all().withIdRange(0, before).newest(50)).stream()
                .flatMap(m -> m.toolCalls().stream()).filter(c -> c.id().equals(callId)).map(MessageToolCall::name)
                .findFirst();
    }

    private void baseTools(ServerResponse res) {
        Api.json(res, api.runtime.toolRegistry().list().stream()
                .map(t -> LettaViews.tool(new ToolDefinition(t.name(), t.description(), t.parametersSchema(), t.safetyTier())))
                .toList());
    }

    private static void balance(ServerResponse res) {
        ObjectNode out = Body.JSON.createObjectNode();
        out.put("total_balance", 0);
        out.put("monthly_credit_balance", 0);
        out.put("purchased_credit_balance", 0);
        out.put("billing_tier", BILLING_TIER);
        Api.json(res, out);
    }

    /** The user the caller's key acts as ({@code admin} for an admin key), in Letta Cloud's shape. */
    private static void user(Caller caller, ServerResponse res) {
        String user = caller.user().orElse("admin");
        ObjectNode out = Body.JSON.createObjectNode();
        out.put("id", user);
        out.put("email", "");
        out.put("name", user);
        out.put("organization_name", "Engram");
        out.put("organization_id", "engram");
        out.putNull("current_project_name");
        out.putNull("current_project_id");
        out.put("billing_tier", BILLING_TIER);
        out.put("remaining_credits", 0);
        Api.json(res, out);
    }
}
