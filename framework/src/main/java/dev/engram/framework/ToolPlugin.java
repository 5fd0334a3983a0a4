package dev.engram.framework;

import java.util.List;

/**
 * Contributes tools from a plugin jar. List the implementation in
 * {@code META-INF/services/dev.engram.framework.ToolPlugin}; plugins are loaded only when
 * {@link ToolRegistry#registerPlugins(ClassLoader)} is called, never implicitly.
 */
public interface ToolPlugin {
    /** The plugin's tools; called once per {@code registerPlugins} call. */
    List<DynamicTool> tools();
}
