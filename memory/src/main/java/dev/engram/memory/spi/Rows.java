package dev.engram.memory.spi;

import dev.engram.memory.AgentRecord;
import dev.engram.memory.ApiKey;
import dev.engram.memory.Archive;
import dev.engram.memory.Conversation;
import dev.engram.memory.CustomTool;
import dev.engram.memory.Group;
import dev.engram.memory.Identity;
import dev.engram.memory.McpServerRecord;
import dev.engram.memory.ProviderRecord;
import dev.engram.memory.Goal;
import dev.engram.memory.GoalEntry;
import dev.engram.memory.FilePassage;
import dev.engram.memory.FileState;
import dev.engram.memory.Folder;
import dev.engram.memory.FolderFile;
import dev.engram.memory.Job;
import dev.engram.memory.Run;
import dev.engram.memory.RunEvent;
import dev.engram.memory.Step;
import dev.engram.memory.ArchivalEntry;
import dev.engram.memory.Block;
import dev.engram.memory.CanvasArtefact;
import dev.engram.memory.BlockVersion;
import dev.engram.memory.ChangeEvent;
import dev.engram.memory.ConversationMessage;
import dev.engram.memory.MemoryPermission;
import dev.engram.memory.MemoryStats;
import dev.engram.memory.MessageQuery;
import dev.engram.memory.MessageReasoning;
import dev.engram.memory.MessageToolCall;
import dev.engram.memory.NewMessage;
import dev.engram.memory.Note;
import dev.engram.memory.Schedule;
import dev.engram.memory.Scope;
import dev.engram.memory.TodoItem;
import dev.engram.memory.UserUsage;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The row operations of one {@link MemoryBackend} transaction. Each stores or returns exactly what it
 * is given, filtered by the scope it is given; the store above has already validated the arguments and
 * checked every rule (labels free, versions current, limits kept), so no method here needs to.
 *
 * <p>A block is identified by its owner's scope and its label; an agent sees its own blocks and the
 * blocks shared with it, with the share's permission. Lists come back in the order each method names.
 */
public interface Rows {
    // ---- blocks ---------------------------------------------------------------------------------

    /** The blocks {@code viewer} owns, then those shared with it (owner's user only), each with the permission it has. */
    List<Block> blocks(Scope viewer);

    /**
     * The block labelled {@code label} that {@code viewer} owns, else one shared with it. The default
     * looks through {@link #blocks}; override it with a lookup by label where that is cheaper.
     */
    default Optional<Block> block(Scope viewer, String label) {
        Block shared = null;
        for (Block b : blocks(viewer)) {
            if (b.label().equals(label)) {
                if (!b.isShared(viewer)) {
                    return Optional.of(b);
                }
                shared = b;
            }
        }
        return Optional.ofNullable(shared);
    }

    /** Stores a new block of {@code owner} (whose agent is {@code block.ownerAgentId()}). */
    void insertBlock(Scope owner, Block block);

    /**
     * Stores {@code block}'s value, description, limit, permission, version and update time for the owner's
     * block of that label if its stored version is still {@code expectedVersion}; returns whether it did.
     */
    boolean updateBlock(Scope owner, Block block, long expectedVersion);

    /** Removes the owner's block of that label with its versions and shares. */
    void deleteBlock(Scope owner, String label);

    /** Adds one version to the history of the owner's block of that label. */
    void insertBlockVersion(Scope owner, String label, BlockVersion version);

    /** The history of the owner's block of that label, oldest first. */
    List<BlockVersion> blockVersions(Scope owner, String label);

    /** Shares the owner's block with agent {@code agentId} of the same user, or changes the share's permission. */
    void putShare(Scope owner, String label, String agentId, MemoryPermission permission);

    /** Ends a share; returns whether there was one. */
    boolean deleteShare(Scope owner, String label, String agentId);

    /**
     * The agents the owner's block of that label is shared with. The default asks each of the user's
     * agents ({@link #listAgents}) whether it sees the owner's block; override it with a lookup of the
     * shares themselves, which also finds shares with agents that have no record.
     */
    default List<String> shareTargets(Scope owner, String label) {
        List<String> targets = new java.util.ArrayList<>();
        for (AgentRecord agent : listAgents(owner.userId())) {
            String id = agent.scope().agentId();
            if (!id.equals(owner.agentId()) && block(agent.scope(), label)
                    .filter(b -> b.ownerAgentId().equals(owner.agentId())).isPresent()) {
                targets.add(id);
            }
        }
        return targets;
    }

    /**
     * Gives the owner's block {@code from} the label {@code to}, with its versions; the block is shared
     * with no one (the store checks). The default stores a copy under the new label and deletes the old
     * block; override it with an update of the label in place.
     */
    default void renameBlock(Scope owner, String from, String to) {
        Block b = block(owner, from).orElseThrow();
        insertBlock(owner, new Block(to, b.description(), b.value(), b.limit(), b.type(), b.permission(), b.pinned(),
                b.version(), b.ownerAgentId(), b.createdAt(), b.updatedAt()));
        for (BlockVersion v : blockVersions(owner, from)) {
            insertBlockVersion(owner, to, v);
        }
        deleteBlock(owner, from);
    }

    // ---- archival memory --------------------------------------------------------------------------

    /** Inserts the entries, or replaces those whose id exists, in order. */
    void putArchival(Scope scope, List<ArchivalEntry> entries);

    /** Returns whether the scope had an entry with that id. */
    boolean deleteArchival(Scope scope, String id);

    Optional<ArchivalEntry> archival(Scope scope, String id);

    Optional<ArchivalEntry> archivalByLabel(Scope scope, String label);

    /** The current entries (not superseded), newest first (by creation time, then the later insert first). */
    List<ArchivalEntry> listArchival(Scope scope, int offset, int limit);

    /** The scope's entry that superseded the one with id {@code id}, if one did. */
    Optional<ArchivalEntry> archivalSuperseding(Scope scope, String id);

    // ---- notes ------------------------------------------------------------------------------------

    /** Inserts the note, or replaces the one with its id. */
    void putNote(Note note);

    /** Returns whether the user had a note with that id. */
    boolean deleteNote(String userId, String noteId);

    Optional<Note> note(String userId, String noteId);

    /** The current notes (not superseded), newest first (by creation time, then the later insert first). */
    List<Note> listNotes(String userId, int offset, int limit);

    /** The user's note that superseded the one with id {@code noteId}, if one did. */
    Optional<Note> noteSuperseding(String userId, String noteId);

    /** How many current notes the user has. */
    long countNotes(String userId);

    // ---- messages ---------------------------------------------------------------------------------

    /**
     * Appends messages created at {@code at}, in context, and returns them with their ids: increasing,
     * never reused, in the order given, across the whole storage.
     */
    List<ConversationMessage> insertMessages(Scope scope, List<NewMessage> messages, Instant at);

    Optional<ConversationMessage> message(Scope scope, long id);

    /** The scope's messages matching every filter of {@code query}, oldest first (see {@link MessageQuery}). */
    List<ConversationMessage> listMessages(Scope scope, MessageQuery query);

    /** Marks those of {@code ids} that are the scope's and in context as out of context; returns how many. */
    int markOutOfContext(Scope scope, Collection<Long> ids);

    /**
     * Replaces the text of the scope's message {@code id}: its content, tool calls and reasoning (its id, role, session,
     * time and place in or out of context stay). Returns whether the scope has that message.
     */
    boolean updateMessageText(Scope scope, long id, String content, List<MessageToolCall> toolCalls, MessageReasoning reasoning);

    // ---- agents -----------------------------------------------------------------------------------

    /** Inserts the agent, or replaces the one of its scope. */
    void putAgent(AgentRecord agent);

    Optional<AgentRecord> agent(Scope scope);

    /** The user's agents with that name (several may share one), oldest first. */
    List<AgentRecord> agentsByName(String userId, String name);

    /** The user's agents, by name. */
    List<AgentRecord> listAgents(String userId);

    /** Returns whether there was one. */
    boolean deleteAgent(Scope scope);

    // ---- schedules (optional) ----------------------------------------------------------------------

    /**
     * Stores a new schedule. Schedules are optional: the defaults of the five schedule methods throw
     * {@link UnsupportedOperationException}, and the store's schedules then refuse every call.
     */
    default void insertSchedule(Schedule schedule) {
        throw noSchedules();
    }

    /** The user's schedule with that id. */
    default Optional<Schedule> schedule(String userId, String id) {
        throw noSchedules();
    }

    /** Every schedule of the user, of all their agents, in any state. */
    default List<Schedule> listSchedules(String userId) {
        throw noSchedules();
    }

    /**
     * Up to {@code max} active schedules of any user whose next run is at or before {@code now} and that no one
     * holds (no claim, or a claim ending at or before {@code now}), the soonest due first.
     */
    default List<Schedule> dueSchedules(Instant now, int max) {
        throw noSchedules();
    }

    /** Replaces the stored schedule with {@code schedule} if its stored version is still {@code expectedVersion}; returns whether it did. */
    default boolean updateSchedule(Schedule schedule, long expectedVersion) {
        throw noSchedules();
    }

    private static UnsupportedOperationException noSchedules() {
        return new UnsupportedOperationException("this memory backend keeps no schedules (it does not implement "
                + "the schedule methods of Rows)");
    }

    // ---- API keys (optional) -------------------------------------------------------------------------

    /** Stores a key's record with the hash of the key. Keys are optional, like schedules: the four defaults throw. */
    default void insertKey(ApiKey key, String hash) {
        throw noKeys();
    }

    /** The key whose hash is {@code hash}. */
    default Optional<ApiKey> keyByHash(String hash) {
        throw noKeys();
    }

    /** Every key, oldest first. */
    default List<ApiKey> listKeys() {
        throw noKeys();
    }

    /** Removes a key; returns whether there was one. */
    default boolean deleteKey(String id) {
        throw noKeys();
    }

    // ---- identities (optional) -------------------------------------------------------------------------

    /** Stores a user's identity, replacing the one the user had. Identities are optional, like keys: the defaults throw. */
    default void putIdentity(Identity identity) {
        throw noIdentities();
    }

    /** The user's identity. */
    default Optional<Identity> identity(String userId) {
        throw noIdentities();
    }

    /** Every identity, oldest first. */
    default List<Identity> listIdentities() {
        throw noIdentities();
    }

    /** Removes the user's identity; returns whether there was one. */
    default boolean deleteIdentity(String userId) {
        throw noIdentities();
    }

    // ---- conversations (optional) ----------------------------------------------------------------------

    /** Stores a conversation, replacing the one of its id. Conversations are optional, like identities: the defaults throw. */
    default void putConversation(Conversation conversation) {
        throw noConversations();
    }

    /** The conversation of that id, whoever's it is. */
    default Optional<Conversation> conversation(String id) {
        throw noConversations();
    }

    /** The user's conversations, oldest first. */
    default List<Conversation> listConversations(String userId) {
        throw noConversations();
    }

    /** Removes a conversation; returns whether there was one. */
    default boolean deleteConversation(String id) {
        throw noConversations();
    }

    // ---- model providers (optional) ---------------------------------------------------------------------

    /** Stores a provider, replacing the one of its id. Providers are optional, like identities: the defaults throw. */
    default void putProvider(ProviderRecord provider) {
        throw noProviders();
    }

    /** The provider of that id. */
    default Optional<ProviderRecord> provider(String id) {
        throw noProviders();
    }

    /** Every provider, oldest first. */
    default List<ProviderRecord> listProviders() {
        throw noProviders();
    }

    /** Removes a provider; returns whether there was one. */
    default boolean deleteProvider(String id) {
        throw noProviders();
    }

    // ---- custom tools (optional) ------------------------------------------------------------------------

    /** Stores a user's tool written from source, replacing the one of its id. Optional: the defaults throw. */
    default void putCustomTool(CustomTool tool) {
        throw noCustomTools();
    }

    /** The custom tool of that id, whoever's it is. */
    default Optional<CustomTool> customTool(String id) {
        throw noCustomTools();
    }

    /** The user's custom tools, oldest first. */
    default List<CustomTool> listCustomTools(String userId) {
        throw noCustomTools();
    }

    /** Removes a custom tool; returns whether there was one. */
    default boolean deleteCustomTool(String id) {
        throw noCustomTools();
    }

    // ---- MCP servers (optional) --------------------------------------------------------------------------

    /** Stores a user's MCP server, replacing the one of its id. Optional, like providers: the defaults throw. */
    default void putMcpServer(McpServerRecord server) {
        throw noMcpServers();
    }

    /** The MCP server of that id, whoever's it is. */
    default Optional<McpServerRecord> mcpServer(String id) {
        throw noMcpServers();
    }

    /** Every user's MCP servers, oldest first. */
    default List<McpServerRecord> listMcpServers() {
        throw noMcpServers();
    }

    /** Removes an MCP server; returns whether there was one. */
    default boolean deleteMcpServer(String id) {
        throw noMcpServers();
    }

    // ---- runs (optional) -------------------------------------------------------------------------------

    /** Stores a run, replacing the one of its id. Runs are optional, like identities: the defaults throw. */
    default void putRun(Run run) {
        throw noRuns();
    }

    /** The run of that id, whoever's it is. */
    default Optional<Run> run(String id) {
        throw noRuns();
    }

    /** The run of the user's agent in that conversation that started last. */
    default Optional<Run> latestRun(String userId, String agentId, String conversationId) {
        throw noRuns();
    }

    /** Adds events to a run (their sequence numbers are new for it). */
    default void appendRunEvents(String runId, List<RunEvent> events) {
        throw noRuns();
    }

    /** A run's events after sequence number {@code afterSeq}, oldest first, at most {@code limit}. */
    default List<RunEvent> runEvents(String runId, long afterSeq, int limit) {
        throw noRuns();
    }

    /** The sequence number of a run's last event; 0 when it has none (or only had events now dropped and none kept). */
    default long lastRunSeq(String runId) {
        throw noRuns();
    }

    /** Drops a run's events up to and including sequence number {@code throughSeq}. */
    default void deleteRunEvents(String runId, long throughSeq) {
        throw noRuns();
    }

    /**
     * Removes, with their events and steps, the runs that ended before {@code endedBefore} and the active runs last updated
     * before {@code staleBefore}; returns how many.
     */
    default int deleteRuns(Instant endedBefore, Instant staleBefore) {
        throw noRuns();
    }

    /** Every run of the user, oldest first (by start, then id). */
    default List<Run> userRuns(String userId) {
        throw noRuns();
    }

    /** Removes a run with its events and steps; returns whether there was one. */
    default boolean deleteRun(String id) {
        throw noRuns();
    }

    /** Stores steps of runs, replacing those of their ids. Steps are kept with runs: the defaults throw. */
    default void putSteps(List<Step> steps) {
        throw noRuns();
    }

    /** The step of that id, whoever's it is. */
    default Optional<Step> step(String id) {
        throw noRuns();
    }

    /** A run's steps, oldest first (by start, then id). */
    default List<Step> runSteps(String runId) {
        throw noRuns();
    }

    /** Every step of the user's runs, oldest first (by start, then id). */
    default List<Step> userSteps(String userId) {
        throw noRuns();
    }

    // ---- work state: todos and goals (optional) ------------------------------------------------------

    /** The agent's task list, in its order. Work state is optional, like runs: the defaults throw. */
    default List<TodoItem> todos(Scope scope) {
        throw noWorkState();
    }

    /** Replaces the agent's task list (an empty list clears it), stamped {@code at}. */
    default void replaceTodos(Scope scope, List<TodoItem> todos, Instant at) {
        throw noWorkState();
    }

    /** Stores a goal, replacing the one of its id. */
    default void putGoal(Goal goal) {
        throw noWorkState();
    }

    /** The goal of that id, whoever's it is. */
    default Optional<Goal> goal(String id) {
        throw noWorkState();
    }

    /** The agent's goals, oldest first. */
    default List<Goal> goals(Scope scope) {
        throw noWorkState();
    }

    /** Adds a checkpoint or decision to a goal of the agent of {@code scope}. */
    default void insertGoalEntry(Scope scope, GoalEntry entry) {
        throw noWorkState();
    }

    /** A goal's entries of that kind, newest first, at most {@code limit}. */
    default List<GoalEntry> goalEntries(String goalId, GoalEntry.Kind kind, int limit) {
        throw noWorkState();
    }

    /** How many entries (of both kinds) a goal has. */
    default int countGoalEntries(String goalId) {
        throw noWorkState();
    }

    private static UnsupportedOperationException noWorkState() {
        return new UnsupportedOperationException("this memory backend keeps no todos or goals (it does not implement the "
                + "work-state methods of Rows)");
    }

    // ---- canvas artefacts (optional) ----------------------------------------------------------------------

    /** Stores one version of an artefact (its version is new for its name). Canvases are optional, like runs: the defaults throw. */
    default void insertCanvas(CanvasArtefact artefact) {
        throw noCanvases();
    }

    /** Version {@code version} of the scope's artefact {@code name}. */
    default Optional<CanvasArtefact> canvas(Scope scope, String name, int version) {
        throw noCanvases();
    }

    /** The highest version of the scope's artefact {@code name}; 0 when it has none. */
    default int lastCanvasVersion(Scope scope, String name) {
        throw noCanvases();
    }

    /** Every version of the scope's artefact {@code name}, oldest first. */
    default List<CanvasArtefact> canvasVersions(Scope scope, String name) {
        throw noCanvases();
    }

    /** The newest version of each of the scope's artefacts, by name. */
    default List<CanvasArtefact> listCanvases(Scope scope) {
        throw noCanvases();
    }

    private static UnsupportedOperationException noCanvases() {
        return new UnsupportedOperationException("this memory backend keeps no canvas artefacts (it does not implement the "
                + "canvas methods of Rows)");
    }

    // ---- archives (optional) ------------------------------------------------------------------------------

    /**
     * Stores an archive, replacing the one of its id. Archives are optional, like runs: the defaults of the archive
     * methods throw. An archive's passages are archival entries in its {@linkplain Archive#scope() scope}.
     */
    default void putArchive(Archive archive) {
        throw noArchives();
    }

    /** The user's archive of that id. */
    default Optional<Archive> archive(String userId, String id) {
        throw noArchives();
    }

    /** The user's archives, oldest first (by creation, then id). */
    default List<Archive> listArchives(String userId) {
        throw noArchives();
    }

    /** Removes the user's archive and its attachments to agents (not its passages); returns whether there was one. */
    default boolean deleteArchive(String userId, String id) {
        throw noArchives();
    }

    /** Attaches the user's archive to the user's agent, at {@code at}; the store has checked that it is not attached yet. */
    default void attachArchive(String userId, String archiveId, String agentId, Instant at) {
        throw noArchives();
    }

    /** Detaches the archive from the agent; returns whether it was attached. */
    default boolean detachArchive(String userId, String archiveId, String agentId) {
        throw noArchives();
    }

    /** The agents the user's archive is attached to, the earliest attached first. */
    default List<String> archiveAgents(String userId, String archiveId) {
        throw noArchives();
    }

    /** The archives attached to the agent, the earliest attached first. */
    default List<Archive> agentArchives(Scope agent) {
        throw noArchives();
    }

    /** Removes every archival entry of the scope, current and superseded; returns their ids. */
    default List<String> deleteAllArchival(Scope scope) {
        throw noArchives();
    }

    private static UnsupportedOperationException noArchives() {
        return new UnsupportedOperationException("this memory backend keeps no archives (it does not implement the archive "
                + "methods of Rows)");
    }

    // ---- groups (optional) --------------------------------------------------------------------------------

    /** Stores a group, replacing the one of its id. Groups are optional, like archives: the defaults of the group methods throw. */
    default void putGroup(Group group) {
        throw noGroups();
    }

    /** The user's group of that id. */
    default Optional<Group> group(String userId, String id) {
        throw noGroups();
    }

    /** The user's groups, oldest first (by creation, then id). */
    default List<Group> listGroups(String userId) {
        throw noGroups();
    }

    /** Removes the user's group; returns whether there was one. */
    default boolean deleteGroup(String userId, String id) {
        throw noGroups();
    }

    private static UnsupportedOperationException noGroups() {
        return new UnsupportedOperationException("this memory backend keeps no groups (it does not implement the group "
                + "methods of Rows)");
    }

    // ---- jobs (optional) -------------------------------------------------------------------------------

    /** Stores a job, replacing the one of its id. Jobs are optional, like runs: the defaults throw. */
    default void putJob(Job job) {
        throw noJobs();
    }

    /** The job of that id, whoever's it is. */
    default Optional<Job> job(String id) {
        throw noJobs();
    }

    /** The user's jobs, newest first (by creation, then id), at most {@code limit}. */
    default List<Job> listJobs(String userId, int limit) {
        throw noJobs();
    }

    /** Removes a job; returns whether there was one. */
    default boolean deleteJob(String id) {
        throw noJobs();
    }

    /** Every user's active jobs (created or running), oldest first (by creation, then id). */
    default List<Job> unfinishedJobs() {
        throw noJobs();
    }

    // ---- folders, files and passages (optional) -----------------------------------------------------

    /** Stores a folder, replacing the one of its id. Folders are optional, like jobs: the defaults throw. */
    default void putFolder(Folder folder) {
        throw noFolders();
    }

    /** The user's folder of that id. */
    default Optional<Folder> folder(String userId, String id) {
        throw noFolders();
    }

    /** The user's folders, oldest first (by creation, then id). */
    default List<Folder> listFolders(String userId) {
        throw noFolders();
    }

    /**
     * Removes the user's folder row with its attachments to agents (the store removes its files first); returns whether
     * there was one.
     */
    default boolean deleteFolder(String userId, String id) {
        throw noFolders();
    }

    /** Stores a file, replacing the one of its id. */
    default void putFile(FolderFile file) {
        throw noFolders();
    }

    /** The user's file of that id. */
    default Optional<FolderFile> file(String userId, String id) {
        throw noFolders();
    }

    /** The files of the user's folder, oldest first (by creation, then id). */
    default List<FolderFile> listFiles(String userId, String folderId) {
        throw noFolders();
    }

    /** Removes the user's file, its passages and the agents' states of it; returns whether there was one. */
    default boolean deleteFile(String userId, String id) {
        throw noFolders();
    }

    /** Stores new passages. */
    default void insertPassages(List<FilePassage> passages) {
        throw noFolders();
    }

    /** The user's passage of that id. */
    default Optional<FilePassage> passage(String userId, String id) {
        throw noFolders();
    }

    /** The passages of the user's folder, by file (creation, then id), then position; {@code offset} skipped, at most {@code limit}. */
    default List<FilePassage> listPassages(String userId, String folderId, int offset, int limit) {
        throw noFolders();
    }

    /** The ids of the passages of the user's file. */
    default List<String> passageIds(String userId, String fileId) {
        throw noFolders();
    }

    /** How many passages the user's folder holds. */
    default long countPassages(String userId, String folderId) {
        throw noFolders();
    }

    /** Attaches the user's folder to the user's agent, at {@code at}; the store has checked that it is not attached yet. */
    default void attachFolder(String userId, String folderId, String agentId, Instant at) {
        throw noFolders();
    }

    /** Detaches the folder from the agent with the agent's states of its files; returns whether it was attached. */
    default boolean detachFolder(String userId, String folderId, String agentId) {
        throw noFolders();
    }

    /** The agents the user's folder is attached to, the earliest attached first. */
    default List<String> folderAgents(String userId, String folderId) {
        throw noFolders();
    }

    /** The folders attached to the agent, the earliest attached first. */
    default List<Folder> agentFolders(Scope agent) {
        throw noFolders();
    }

    /** Stores the agent's state of one file, replacing the one of its agent and file. */
    default void putFileState(FileState state) {
        throw noFolders();
    }

    /** The agent's states of its files, in no particular order. */
    default List<FileState> fileStates(Scope agent) {
        throw noFolders();
    }

    private static UnsupportedOperationException noFolders() {
        return new UnsupportedOperationException("this memory backend keeps no folders (it does not implement the folder "
                + "methods of Rows)");
    }

    private static UnsupportedOperationException noJobs() {
        return new UnsupportedOperationException("this memory backend keeps no jobs (it does not implement the job "
                + "methods of Rows)");
    }

    private static UnsupportedOperationException noRuns() {
        return new UnsupportedOperationException("this memory backend keeps no runs (it does not implement the run "
                + "methods of Rows)");
    }

    private static UnsupportedOperationException noCustomTools() {
        return new UnsupportedOperationException("this memory backend keeps no custom tools (it does not implement the "
                + "custom tool methods of Rows)");
    }

    private static UnsupportedOperationException noMcpServers() {
        return new UnsupportedOperationException("this memory backend keeps no MCP servers (it does not implement the "
                + "MCP server methods of Rows)");
    }

    private static UnsupportedOperationException noProviders() {
        return new UnsupportedOperationException("this memory backend keeps no model providers (it does not implement the "
                + "provider methods of Rows)");
    }

    private static UnsupportedOperationException noConversations() {
        return new UnsupportedOperationException("this memory backend keeps no conversations (it does not implement the "
                + "conversation methods of Rows)");
    }

    private static UnsupportedOperationException noIdentities() {
        return new UnsupportedOperationException("this memory backend keeps no identities (it does not implement the "
                + "identity methods of Rows)");
    }

    private static UnsupportedOperationException noKeys() {
        return new UnsupportedOperationException("this memory backend keeps no API keys (it does not implement the key "
                + "methods of Rows)");
    }

    // ---- change log and statistics ------------------------------------------------------------------

    /** Appends events in order, each with the next sequence number (strictly increasing, never reused). */
    void appendChanges(List<NewChange> changes);

    /** Events with {@code seq > afterSeq}, oldest first, at most {@code max}. */
    List<ChangeEvent> changesSince(long afterSeq, int max);

    /** The newest sequence number, or 0 when the log is empty. */
    long lastChangeSeq();

    /** Counts for the scope: blocks it sees, its archival entries, its user's notes, its messages. */
    MemoryStats stats(Scope scope);

    /**
     * What the user keeps: agents, owned blocks, archival entries, notes and their bytes. The default reads every row of
     * the user; a backend overrides it with counts (the three Engram backends answer it from their indexes).
     */
    default UserUsage usage(String userId) {
        long agents = 0;
        long blocks = 0;
        long entries = 0;
        long bytes = 0;
        for (AgentRecord agent : listAgents(userId)) {
            agents++;
            for (Block b : blocks(agent.scope())) {
                if (!b.isShared(agent.scope())) {
                    blocks++;
                    bytes += b.value().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                }
            }
            for (int offset = 0; ; offset += 1_000) {
                List<ArchivalEntry> page = listArchival(agent.scope(), offset, 1_000);
                for (ArchivalEntry e : page) {
                    entries++;
                    bytes += e.content().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                }
                if (page.size() < 1_000) {
                    break;
                }
            }
        }
        long notes = 0;
        for (int offset = 0; ; offset += 1_000) {
            List<Note> page = listNotes(userId, offset, 1_000);
            for (Note n : page) {
                notes++;
                bytes += n.content().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            }
            if (page.size() < 1_000) {
                break;
            }
        }
        return new UserUsage(agents, blocks, entries, notes, bytes);
    }

    /**
     * The storage's identity: fixed when it was created (a backup restored keeps its original's).
     * Derived indexes record it, so that an index is never used over another store. The default, empty,
     * means the backend has none; an index then relies on the change log alone.
     */
    default String storeId() {
        return "";
    }

    /**
     * The files of the user's folder as {@link #listFiles} lists them, each without its text ({@link FolderFile#head()}):
     * what names the files of a folder without reading them. The default reads the files and drops their text; a backend
     * that stores text in a column overrides it with a query that leaves the column out.
     */
    default List<FolderFile> listFileHeads(String userId, String folderId) {
        return listFiles(userId, folderId).stream().map(FolderFile::head).toList();
    }
}
