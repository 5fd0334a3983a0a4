package dev.engram.memory;

/**
 * One item of an agent's task list, which the agent replaces as a whole ({@link WorkStateStore#writeTodos}).
 *
 * @param content what is to be done, not blank, at most {@link WorkStateStore#MAX_TODO_CHARS} characters
 * @param status  where it stands
 */
public record TodoItem(String content, TodoStatus status) {
    public TodoItem {
        Checks.unicode(content, "todo content");
        if (content.isBlank()) {
            throw new IllegalArgumentException("a todo's content must not be blank; say what is to be done");
        }
        if (content.length() > WorkStateStore.MAX_TODO_CHARS) {
            throw new IllegalArgumentException("a todo has at most " + WorkStateStore.MAX_TODO_CHARS
                    + " characters, got " + content.length() + "; shorten it");
        }
        Checks.notNull(status, "todo status");
    }

    /** A todo not started yet. */
    public static TodoItem pending(String content) {
        return new TodoItem(content, TodoStatus.PENDING);
    }
}
