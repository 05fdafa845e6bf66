/**
 * The router cache step's store: answers kept by normalised request (and, for a semantic match, by the embedding of
 * the last user message), per router, step and scope, with a TTL and a least-recently-used size cap, in Arbor's own
 * database; and a whole answer replayed as a stream.
 */
@NullMarked
package dev.arbor.inference.cache;

import org.jspecify.annotations.NullMarked;
