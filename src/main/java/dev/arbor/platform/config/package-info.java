@NullMarked
package dev.arbor.platform.config;

import org.jspecify.annotations.NullMarked;
