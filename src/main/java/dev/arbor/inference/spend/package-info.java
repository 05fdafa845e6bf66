/**
 * What inference costs: the price catalog shipped with the server and the prices admins set, each request's cost, and
 * the spend the usage rows add up to ({@code GET /spend}).
 */
@NullMarked
package dev.arbor.inference.spend;

import org.jspecify.annotations.NullMarked;
