//! How the placement benches split their iterations between the product and its baseline.

/// Both sides run in this many alternating rounds, so that a slow spell of the disk falls on
/// both alike rather than on whichever side it happened to meet.
const ROUNDS: usize = 10;

/// The rounds and the iterations of each for `iters` in all: fewer rounds when there are fewer
/// iterations than rounds, so a short run still times every iteration it can.
pub fn split(iters: usize) -> (usize, usize) {
    let rounds = ROUNDS.min(iters).max(1);
    (rounds, iters / rounds)
}
