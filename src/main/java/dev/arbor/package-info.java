@NullMarked
package dev.arbor;

import org.jspecify.annotations.NullMarked;
