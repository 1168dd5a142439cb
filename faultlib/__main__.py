from faultlib.cli.app import main

main()
