@NullMarked
package dev.arbor.models.runtime;

import org.jspecify.annotations.NullMarked;
