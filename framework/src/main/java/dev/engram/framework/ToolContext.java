package dev.engram.framework;

import dev.engram.framework.model.ChatModel;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The immutable, per-call snapshot a tool runs with: who is calling (user, agent, session), where its
 * workspace is, how to ask for approval, and how to notice cancellation.
 *
 * <p>Services a tool needs (a memory store, an HTTP client) are given to the tool through its
 * constructor, not looked up here. A tool that needs an identity the context lacks calls
 * {@link #requireUserId()} or {@link #requireAgentId()}, which raise a {@link ToolException} that
 * the pipeline returns to the model as an error result.
 */
public final class ToolContext {
    private static final ToolContext EMPTY = builder().build();

    private final String userId;
    private final String agentId;
    private final String sessionId;
    private final Path workspaceRoot;
    private final ApprovalHandler approvalHandler;
    private final CancellationToken cancellation;
    private final String actor;
    private final String callId;
    private final ToolProgress progress;
    private final ToolProgressListener progressListener;
    private final ChatModel chatModel;

    private ToolContext(Builder b) {
        this.userId = b.userId;
        this.agentId = b.agentId;
        this.sessionId = b.sessionId;
        this.workspaceRoot = b.workspaceRoot;
        this.approvalHandler = b.approvalHandler;
        this.cancellation = b.cancellation == null ? CancellationToken.create() : b.cancellation;
        this.actor = b.actor;
        this.callId = b.callId;
        this.progress = b.progress == null ? ToolProgress.NONE : b.progress;
        this.progressListener = b.progressListener;
        this.chatModel = b.chatModel;
    }

    /** A context with no identity, no workspace and no approval handler. */
    public static ToolContext empty() {
        return EMPTY;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder pre-filled with this context's values, for deriving a changed copy. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.userId = userId;
        b.agentId = agentId;
        b.sessionId = sessionId;
        b.workspaceRoot = workspaceRoot;
        b.approvalHandler = approvalHandler;
        b.cancellation = cancellation;
        b.actor = actor;
        b.callId = callId;
        b.progress = progress;
        b.progressListener = progressListener;
        b.chatModel = chatModel;
        return b;
    }

    /**
     * Who makes the call when it is not the agent itself: a companion (such as a sleep-time agent) acting
     * on the agent's memory. Tools that keep a history record it as the origin of their writes.
     */
    public Optional<String> actor() {
        return Optional.ofNullable(actor);
    }

    public Optional<String> userId() {
        return Optional.ofNullable(userId);
    }

    /**
     * The id of the call the tool is running for: set by {@link ToolExecutor} for each call it runs, so that a tool
     * asking someone mid-call (for consent, say) can name the call the asking is about.
     */
    public Optional<String> callId() {
        return Optional.ofNullable(callId);
    }

    public Optional<String> agentId() {
        return Optional.ofNullable(agentId);
    }

    public Optional<String> sessionId() {
        return Optional.ofNullable(sessionId);
    }

    public Optional<Path> workspaceRoot() {
        return Optional.ofNullable(workspaceRoot);
    }

    public Optional<ApprovalHandler> approvalHandler() {
        return Optional.ofNullable(approvalHandler);
    }

    /**
     * Where the tool reports output while it runs; never absent ({@link ToolProgress#NONE} when nobody
     * listens). What is reported here never reaches the model.
     */
    public ToolProgress progress() {
        return progress;
    }

    /**
     * Where a {@link ToolExecutor} sends the progress of each call it runs with this context, tagged with the call; the
     * executor then gives each call a {@link #progress()} of its own that reports there. Absent when nobody listens.
     */
    public Optional<ToolProgressListener> progressListener() {
        return Optional.ofNullable(progressListener);
    }

    /**
     * The calling agent's language model, for a tool that needs one (to summarise, to extract); absent when the
     * call is made outside an agent's turn. A tool that calls it spends the agent's tokens.
     */
    public Optional<ChatModel> chatModel() {
        return Optional.ofNullable(chatModel);
    }

    /** Never absent: a context built without one gets a token nobody else holds. */
    public CancellationToken cancellation() {
        return cancellation;
    }

    /** The user id, or a {@link ToolException} telling the model the call has no user. */
    public String requireUserId() {
        if (userId == null) {
            throw new ToolException("This tool needs to know which user it acts for, but the call has no user id. "
                    + "It cannot be used in this context.");
        }
        return userId;
    }

    /** The agent id, or a {@link ToolException} telling the model the call has no agent. */
    public String requireAgentId() {
        if (agentId == null) {
            throw new ToolException("This tool needs to know which agent it acts for, but the call has no agent id. "
                    + "It cannot be used in this context.");
        }
        return agentId;
    }

    /** The workspace root, or a {@link ToolException} telling the model no workspace is configured. */
    public Path requireWorkspaceRoot() {
        if (workspaceRoot == null) {
            throw new ToolException("This tool works on files in a workspace, but no workspace is configured for this agent.");
        }
        return workspaceRoot;
    }

    @Override
    public String toString() {
        return "ToolContext[user=" + userId + ", agent=" + agentId + ", session=" + sessionId
                + ", workspace=" + workspaceRoot + "]";
    }

    /** Builds a {@link ToolContext}; every value is optional. */
    public static final class Builder {
        private String userId;
        private String agentId;
        private String sessionId;
        private Path workspaceRoot;
        private ApprovalHandler approvalHandler;
        private CancellationToken cancellation;
        private String actor;
        private String callId;
        private ToolProgress progress;
        private ToolProgressListener progressListener;
        private ChatModel chatModel;

        private Builder() {
        }

        /** See {@link ToolContext#progressListener()}. */
        public Builder progressListener(ToolProgressListener listener) {
            this.progressListener = Objects.requireNonNull(listener, "progress listener must not be null");
            return this;
        }

        /** See {@link ToolContext#progress()}. */
        public Builder progress(ToolProgress progress) {
            this.progress = Objects.requireNonNull(progress, "progress must not be null");
            return this;
        }

        /** See {@link ToolContext#chatModel()}. */
        public Builder chatModel(ChatModel chatModel) {
            this.chatModel = Objects.requireNonNull(chatModel, "chat model must not be null");
            return this;
        }

        /** See {@link ToolContext#callId()}. */
        public Builder callId(String callId) {
            this.callId = requireNonBlank(callId, "call id");
            return this;
        }

        /** See {@link ToolContext#actor()}. */
        public Builder actor(String actor) {
            this.actor = requireNonBlank(actor, "actor");
            return this;
        }

        public Builder userId(String userId) {
            this.userId = requireNonBlank(userId, "user id");
            return this;
        }

        public Builder agentId(String agentId) {
            this.agentId = requireNonBlank(agentId, "agent id");
            return this;
        }

        public Builder sessionId(String sessionId) {
            this.sessionId = requireNonBlank(sessionId, "session id");
            return this;
        }

        /** The directory the workspace tools are confined to; made absolute and normalised here. */
        public Builder workspaceRoot(Path workspaceRoot) {
            this.workspaceRoot = Objects.requireNonNull(workspaceRoot, "workspace root must not be null")
                    .toAbsolutePath().normalize();
            return this;
        }

        public Builder approvalHandler(ApprovalHandler approvalHandler) {
            this.approvalHandler = Objects.requireNonNull(approvalHandler, "approval handler must not be null");
            return this;
        }

        public Builder cancellation(CancellationToken cancellation) {
            this.cancellation = Objects.requireNonNull(cancellation, "cancellation token must not be null");
            return this;
        }

        public ToolContext build() {
            return new ToolContext(this);
        }

        private static String requireNonBlank(String value, String what) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(what + " must not be null or blank");
            }
            return value;
        }
    }
}
