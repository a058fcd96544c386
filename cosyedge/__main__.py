from cosyedge.cli import main

raise SystemExit(main())
