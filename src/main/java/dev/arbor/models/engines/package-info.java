@NullMarked
package dev.arbor.models.engines;

import org.jspecify.annotations.NullMarked;
