@NullMarked
package dev.arbor.studio.questions;

import org.jspecify.annotations.NullMarked;
