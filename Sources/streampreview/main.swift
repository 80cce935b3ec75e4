print("streampreview")
