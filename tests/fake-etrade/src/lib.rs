//! Fake E*TRADE server (in progress).
