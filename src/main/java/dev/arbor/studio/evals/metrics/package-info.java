@NullMarked
package dev.arbor.studio.evals.metrics;

import org.jspecify.annotations.NullMarked;
