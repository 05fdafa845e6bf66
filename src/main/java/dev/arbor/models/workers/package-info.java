@NullMarked
package dev.arbor.models.workers;

import org.jspecify.annotations.NullMarked;
