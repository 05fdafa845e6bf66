/**
 * The audit log of changes to admin state: a row for every write request whose work committed, written in that
 * work's own transaction, with who made it, what it did to which resource, and the resource before and after
 * (redacted); {@code GET /audit} lists them. Features know nothing of it: it wraps every write route's handler.
 */
@NullMarked
package dev.arbor.audit;

import org.jspecify.annotations.NullMarked;
