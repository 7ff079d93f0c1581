import sys

from mealwatch.cli import main

sys.exit(main())
