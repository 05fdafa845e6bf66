@NullMarked
package dev.arbor.platform.db;

import org.jspecify.annotations.NullMarked;
