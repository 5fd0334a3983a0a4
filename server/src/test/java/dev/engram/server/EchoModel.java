package dev.engram.server;

import dev.engram.framework.ToolCall;
import dev.engram.framework.model.ChatMessage;
import dev.engram.framework.model.ChatModel;
import dev.engram.framework.model.ChatRequest;
import dev.engram.framework.model.ChatResponse;
import dev.engram.framework.model.StreamListener;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * A scripted model for the server's tests, driven by the user's words so that any number of agents can use it:
 * {@code call {"name": T, "arguments": {...}}} makes it call tool T (with a heartbeat) and then say
 * {@code done: RESULT}; {@code quiet {"name": T, "arguments": {...}}} makes it call T without a heartbeat;
 * {@code sleep N} makes it wait N ms first; {@code fail} makes it throw; {@code thread} names the thread that
 * runs the turn; anything else it
 * answers with {@code send_message("You said: ...")}; asked without tools (a summary of the context window), it answers in
 * text. It streams its answer in small pieces (reasoning, then the
 * call's arguments 8 characters at a time).
 */
final class EchoModel implements ChatModel {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final AtomicLong calls = new AtomicLong();

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public ChatResponse chat(ChatRequest request) {
        ChatMessage last = request.messages().getLast();
        String id = "call-" + calls.incrementAndGet();
        if (last instanceof ChatMessage.ToolResult result) {
            return reply(id, "done: " + result.content());
        }
        if (request.tools().isEmpty()) {
            // Asked without tools (a summary of the context window, a plain completion): it answers in text, as a
            // model must, naming how many messages it was given.
            return new ChatResponse(new ChatMessage.Assistant("Echo of " + request.messages().size() + " messages.", List.of()),
                    new ChatResponse.Usage(10, 5), ChatResponse.StopReason.END_TURN);
        }
        String text = request.messages().stream().filter(m -> m instanceof ChatMessage.User).map(m -> ((ChatMessage.User) m).text())
                .reduce((a, b) -> b).orElse("");
        if (text.startsWith("sleep ")) {
            int space = text.indexOf(' ', 6);
            try {
                Thread.sleep(Long.parseLong(text.substring(6, space < 0 ? text.length() : space)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new dev.engram.framework.model.ModelCancelledException("the turn was cancelled");
            }
            text = space < 0 ? "" : text.substring(space + 1);
        }
        if (text.equals("thread")) {
            Thread t = Thread.currentThread();
            return reply(id, "thread " + t.getName() + (t.isVirtual() ? " (virtual)" : " (platform)"));
        }
        if (text.equals("fail")) {
            throw new dev.engram.framework.model.ModelException("the scripted model was told to fail");
        }
        if (text.startsWith("quiet ")) {
            JsonNode spec = JSON.readTree(text.substring(6));
            return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall(id, spec.path("name").asString(),
                    spec.path("arguments").toString()))), new ChatResponse.Usage(10, 5), ChatResponse.StopReason.TOOL_CALLS);
        }
        if (text.startsWith("call ")) {
            JsonNode spec = JSON.readTree(text.substring(5));
            ObjectNode args = ((ObjectNode) spec.path("arguments")).deepCopy();
            args.put("request_heartbeat", true);
            return new ChatResponse(new ChatMessage.Assistant("Calling " + spec.path("name").asString() + ".",
                    List.of(new ToolCall(id, spec.path("name").asString(), args.toString()))),
                    new ChatResponse.Usage(10, 5), ChatResponse.StopReason.TOOL_CALLS);
        }
        return reply(id, "You said: " + text);
    }

    private static ChatResponse reply(String id, String message) {
        ObjectNode args = JSON.createObjectNode().put("message", message);
        return new ChatResponse(new ChatMessage.Assistant("", List.of(new ToolCall(id, "send_message", args.toString()))),
                new ChatResponse.Usage(10, 5), ChatResponse.StopReason.TOOL_CALLS);
    }

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener) {
        ChatResponse response = chat(request);
        listener.onReasoning("Thinking ");
        listener.onReasoning("it over.");
        if (!response.message().text().isEmpty()) {
            listener.onText(response.message().text());
        }
        List<ToolCall> toolCalls = response.message().toolCalls();
        for (int i = 0; i < toolCalls.size(); i++) {
            ToolCall call = toolCalls.get(i);
            listener.onToolCallDelta(i, call.id(), call.name(), "");
            for (int at = 0; at < call.arguments().length(); at += 8) {
                listener.onToolCallDelta(i, "", "", call.arguments().substring(at, Math.min(call.arguments().length(), at + 8)));
            }
            listener.onToolCall(call);
        }
        return response;
    }
}
