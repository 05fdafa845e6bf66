@NullMarked
package dev.arbor.studio.settings;

import org.jspecify.annotations.NullMarked;
