package dev.engram.agents;

import dev.engram.framework.ApprovalHandler;
import dev.engram.framework.ToolHook;
import dev.engram.framework.model.ChatModel;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryStore;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Scope;
import dev.engram.tools.ShellSessions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What a running agent needs from the runtime that made it, as values: the store, how to reach a
 * model, where events go, the loop's limits and whether the runtime is still open.
 *
 * @param store                   the memory store
 * @param models                  a model by spec (cached by the runtime)
 * @param events                  where the agent's events go
 * @param approvalHandler         who is asked to approve a tool call, if anyone
 * @param workspaceRoot           the workspace of the file tools, if any
 * @param agentReplyTimeout       how long a message from another agent waits for this agent
 * @param maxCorrections          failing steps in a row before the turn stops
 * @param loopBreakerThreshold    identical calls within one message before the breaker trips
 * @param memoryPressureThreshold the fraction of the context window that triggers the warning
 * @param open                    whether the runtime still accepts messages
 * @param pythonRunner            the local runner of imported Python tools, if the host enabled it
 * @param unsandboxedHostShell    whether an agent's own shell runs commands unsandboxed on the host where bubblewrap
 *                                is missing (the host chose it); otherwise such a shell refuses every command
 * @param hooks                   what the runtime does around a user message's turn
 * @param toolHooks               the user's hooks around every tool call, in order
 * @param turnHooks               the user's hooks at the start and end of a message's turn, in order
 * @param shellSessions           when the host chose persistent shells, the sessions that own them: an agent's own
 *                                shell then keeps one per session ({@code ShellOptions.session})
 */
record AgentSettings(MemoryStore store, Function<String, ChatModel> models, Consumer<AgentEvent> events,
        Optional<ApprovalHandler> approvalHandler, Optional<Path> workspaceRoot, Duration agentReplyTimeout,
        int maxCorrections, int loopBreakerThreshold, double memoryPressureThreshold, BooleanSupplier open,
        Optional<dev.engram.tools.PythonTools> pythonRunner, boolean unsandboxedHostShell, TurnHooks hooks,
        List<ToolHook> toolHooks, List<TurnHook> turnHooks, Optional<ShellSessions> shellSessions) {

    /** Stores a message of the agent's conversation and tells the listeners ({@link AgentEvent.MessagesStored}). */
    ConversationMessage append(Scope scope, NewMessage message) {
        ConversationMessage stored = store.messages().append(scope, message);
        events.accept(new AgentEvent.MessagesStored(scope, List.of(stored)));
        return stored;
    }

    /** Stores messages of the agent's conversation in one transaction and tells the listeners. */
    List<ConversationMessage> appendAll(Scope scope, List<NewMessage> messages) {
        List<ConversationMessage> stored = store.messages().appendAll(scope, messages);
        if (!stored.isEmpty()) {
            events.accept(new AgentEvent.MessagesStored(scope, stored));
        }
        return stored;
    }

    void checkOpen() {
        if (!open.getAsBoolean()) {
            throw new AgentException("The agent runtime is closed.");
        }
    }
}
