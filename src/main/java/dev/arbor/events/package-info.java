@NullMarked
package dev.arbor.events;

import org.jspecify.annotations.NullMarked;
