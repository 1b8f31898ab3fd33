"""PageRank lab: Markov chains, the power method and the random surfer on a real web graph."""
