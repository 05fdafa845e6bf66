@NullMarked
package dev.arbor.access;

import org.jspecify.annotations.NullMarked;
