"""Face detection lab: a Viola-Jones cascade detecting faces, trained live, with its training material."""
