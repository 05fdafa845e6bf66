/**
 * Inference keys: a project's {@code sk-arb-...} keys for the OpenAI-compatible routes, each limited to its project and
 * to the routers and models it lists.
 */
@NullMarked
package dev.arbor.keys;

import org.jspecify.annotations.NullMarked;
