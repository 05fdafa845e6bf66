/**
 * What leaves history: the retention sweep (by age and by size), redaction of a decision's input or metadata, and
 * bulk deletes and redactions of the decisions a filter matches, with their routes.
 */
@NullMarked
package dev.arbor.studio.erasure;

import org.jspecify.annotations.NullMarked;
