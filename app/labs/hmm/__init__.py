"""Hidden Markov models lab: the dishonest casino, filtering, smoothing, Viterbi and Baum-Welch."""
