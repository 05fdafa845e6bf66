@NullMarked
package dev.arbor.studio.evals;

import org.jspecify.annotations.NullMarked;
