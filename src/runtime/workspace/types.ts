/** The names runtime/workspace shares with runtime/sandbox without importing it. */

/** The kernel's overlayfs (a root CLI) or fuse-overlayfs (an ordinary user). */
export type OverlayEngineName = "overlay" | "fuse-overlayfs";
