@NullMarked
package dev.arbor.triggers;

import org.jspecify.annotations.NullMarked;
