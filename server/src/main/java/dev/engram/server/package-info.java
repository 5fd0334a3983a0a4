/**
 * Engram's server: Letta's V1 REST API (with SSE streaming) over an {@code AgentRuntime}, on Helidon SE.
 */
package dev.engram.server;
