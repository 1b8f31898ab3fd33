"""Learning theory lab: the PAC rectangle game, shattering points with a class, growth functions and the bounds."""
