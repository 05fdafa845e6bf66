/**
 * The MCP sessions agents' endpoints keep with their clients ({@code Mcp-Session-Id}): opened by {@code initialize},
 * bound to the agent and the caller identity, kept in the database so that every server sharing it knows them.
 */
@NullMarked
package dev.arbor.connectors.sessions;

import org.jspecify.annotations.NullMarked;
