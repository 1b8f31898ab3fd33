"""Linear and kernel classifiers lab: perceptron, logistic regression and the SVM (SMO), live."""
