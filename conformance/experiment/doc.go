// Package experiment gates a change. It takes a paired experiment's trial p50s per cell and
// round (baseline and candidate rounds in ABBA order, with the native engines measured in
// the same rounds) and the check failures of each variant, compares candidate with baseline
// in every cell, and hands the report a verdict: adopt, reject (naming every regressed cell
// with its size and p-value) or no-change. Compare does the same statistics for two
// separate runs, where the trials are the only replication. It also holds the simulator
// that proves the method (Simulate, SIMULATION.md) and reads recorded A/A runs to estimate a
// machine's noise (ReadAA, EstimateNoise).
//
// It is opinionated. Trials of one round share that round's conditions, so they are not
// independent samples: the unit is the round. The estimator is the ratio of geometric means
// of trial p50s from round means of log p50, each round adjusted by the natives measured in
// it with a weight estimated from the data (a CUPED-style slope taken within rounds, shrunk
// to 0 without correlation, so a native still warming up does not move the ratio); the test
// is Student's t on round means with a round effect common to the cells of a client count
// estimated apart (Satterthwaite df) and each cell's own residual variance, moderated towards
// the client count's pool by empirical Bayes from 12 rounds on (cells are not equally noisy);
// Holm controls the family-wise error over cells at 0.05, and changes under 2% count as none
// (Method prints all of this). With the lab's four rounds nothing can be concluded, and the
// result says so, with the rounds that would be needed. ProjectPower says what a plan can
// declare before it runs, Replay what it does on a recorded A/A's own rounds; Sequential
// looks after every ABBA block with alpha spent over the looks. It does no timing and no I/O
// beyond the io.Reader ReadAA is given; it does not decide whether two runs may be compared
// at all (methodology tags are the caller's).
package experiment
