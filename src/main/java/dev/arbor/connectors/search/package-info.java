/**
 * Tool search for agents with many tools: the agent sees two meta tools, and finds the tools it needs by what it
 * wants to do, ranked by the bundled embedding model.
 */
@NullMarked
package dev.arbor.connectors.search;

import org.jspecify.annotations.NullMarked;
