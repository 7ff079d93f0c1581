"""The learning room: what fits a model, chooses its settings on validation and measures it.

- ``training``: the one training loop — fine-tunes a ``Pipeline`` (AdamW, warmup then linear decay, length-bucketed
  batches, the epoch with the best validation macro-F1 kept, thresholds, the grave mark's threshold and the review
  margins chosen on validation; a severity head trained beside the labels where the data is annotated).
- ``training_run``: one run of ``mealwatch train``, whole: reads the training data, trains, saves the run with its
  evaluation beside it.
- ``ngram_training``: fits the n-gram channel (``tuned_logistic``) and chooses its fusion weight on validation; the
  same for the native-script view of romanised text; fits the identifier of Latin-letter languages.
- ``evaluation``: evaluation reports — scikit-learn metrics, a bootstrap interval for macro-F1, scores per script
  and language, plots.
- ``triage_evaluation``: per language form, the grave mark's recall and precision, children counted, the language
  identified and whether the review flag tells right from wrong.
- ``baselines``: what the fine-tuned model is measured against (TF-IDF, frozen encoder, from scratch) and the
  table of ``mealwatch compare``.
- ``splits``: seeded, stratified train/validation/test splits and the text key that finds duplicates.
- ``corrections``: officers' corrections in the log as training examples, folded into a training split.

Imports point one way: ``baselines`` and ``training_run`` use ``training``, which uses ``ngram_training`` and
``evaluation``; nothing here imports ``baselines``. The scoring rules they all choose by (macro-F1, threshold
tuning, the decision rule, certainty) are ``mealwatch.decisions``, outside this room because the pipeline, the
review flag and the service apply them to every prediction.
"""
