//! Black-box protocol tests: replays the transcript files in this folder against the built
//! `pbrain-rensa` (or any brain named by `RENSA_BRAIN`).
