@NullMarked
package dev.arbor.connectors;

import org.jspecify.annotations.NullMarked;
