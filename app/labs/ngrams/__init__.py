"""n-gram text generation: from unigram word salad to 5-grams quoting Shakespeare."""
